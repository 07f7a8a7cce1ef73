package e2a_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode"

	"github.com/sluicehq/sluice/protocol/e2a"
)

func asError(err error, target **e2a.Error) bool { return errors.As(err, target) }

// assertEnvelopeRoundTrip: decode(encode(e)) == e, and encoding is stable.
func assertEnvelopeRoundTrip(t testing.TB, e *e2a.Envelope) {
	t.Helper()
	b1, err := e2a.AppendEnvelope(nil, e)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	if !json.Valid(b1) {
		t.Fatalf("encoder wrote invalid JSON: %s", b1)
	}
	e2, err := e2a.DecodeEnvelope(b1, e2a.Limits{MaxBytes: len(b1) + 1})
	if err != nil {
		t.Fatalf("encoded envelope does not decode: %v\n%s", err, b1)
	}
	if !reflect.DeepEqual(normalizeEnvelope(e), e2) {
		t.Fatalf("round trip changed the envelope:\nbefore %#v\nafter  %#v", e, e2)
	}
	b2, _ := e2a.AppendEnvelope(nil, e2)
	if !bytes.Equal(b1, b2) {
		t.Fatalf("encoding is not stable:\n%s\n%s", b1, b2)
	}
}

// normalizeEnvelope is e as decoding gives it back: defaults for zero values,
// nil for empty maps and lists.
func normalizeEnvelope(e *e2a.Envelope) *e2a.Envelope {
	c := *e
	if c.ProtocolVersion == "" {
		c.ProtocolVersion = e2a.ProtocolVersion
	}
	if c.IdentityOrigin == "" {
		c.IdentityOrigin = e2a.OriginUser
	}
	c.Provenance = normalizeProvenance(c.Provenance)
	if c.AgentID == "" { // the reference's fallback
		c.AgentID = strings.TrimFunc(c.SourceAgentID, func(r rune) bool { return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f })
	}
	c.Params = nilIfEmpty(c.Params)
	c.ChannelContext = nilIfEmpty(c.ChannelContext)
	c.A2AMetadata = nilIfEmpty(c.A2AMetadata)
	c.ACPMeta = nilIfEmpty(c.ACPMeta)
	if len(c.ExpectedOutputModes) == 0 {
		c.ExpectedOutputModes = nil
	}
	if c.Auth != nil {
		a := *c.Auth
		a.Meta = nilIfEmpty(a.Meta)
		if len(a.ExtraHeaders) == 0 {
			a.ExtraHeaders = nil
		}
		c.Auth = &a
	}
	return &c
}

func normalizeProvenance(p e2a.Provenance) e2a.Provenance {
	if p.SourceProtocol == "" {
		p.SourceProtocol = e2a.SourceE2A
	}
	p.Details = nilIfEmpty(p.Details)
	return p
}

func nilIfEmpty(m map[string]any) map[string]any {
	if len(m) == 0 {
		return nil
	}
	return m
}

// assertResponseRoundTrip: decode(encode(r)) == r, and encoding is stable.
func assertResponseRoundTrip(t testing.TB, r *e2a.Response) {
	t.Helper()
	b1, err := e2a.AppendResponse(nil, r)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	r2, err := e2a.DecodeResponse(b1, e2a.Limits{MaxBytes: len(b1) + 1})
	if err != nil {
		t.Fatalf("encoded frame does not decode: %v\n%s", err, b1)
	}
	c := *r
	c.Provenance = normalizeProvenance(c.Provenance)
	if c.ProtocolVersion == "" {
		c.ProtocolVersion = e2a.ProtocolVersion
	}
	if c.Status == "" {
		c.Status = e2a.StatusInProgress
	}
	if c.IdentityOrigin == "" {
		c.IdentityOrigin = e2a.OriginAgent
	}
	for _, m := range []*map[string]any{&c.Body, &c.Projections, &c.ChannelContext, &c.Metadata, &c.A2AMetadata, &c.ACPMeta} {
		*m = nilIfEmpty(*m)
	}
	if !reflect.DeepEqual(&c, r2) {
		t.Fatalf("round trip changed the frame:\nbefore %#v\nafter  %#v", &c, r2)
	}
	b2, _ := e2a.AppendResponse(nil, r2)
	if !bytes.Equal(b1, b2) {
		t.Fatalf("encoding is not stable:\n%s\n%s", b1, b2)
	}
}
