package e2a_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/protocol/e2a"
)

// The hand-rolled encoder must write exactly what encoding/json writes for the
// same fields in the same order (SetEscapeHTML(false), compact). These mirror
// types are the reference: plain structs with json tags in the reference's
// field order, pointers for nullable fields.

type refProvenance struct {
	SourceProtocol string         `json:"source_protocol"`
	Converter      *string        `json:"converter"`
	ConvertedAt    *string        `json:"converted_at"`
	Details        map[string]any `json:"details"`
}

type refAuth struct {
	MethodID      *string           `json:"method_id"`
	BearerToken   *string           `json:"bearer_token"`
	APIKeyRef     *string           `json:"api_key_ref"`
	CredentialRef *string           `json:"credential_ref"`
	ExtraHeaders  map[string]string `json:"extra_headers"`
	Meta          map[string]any    `json:"_meta"`
}

type refEnvelope struct {
	ProtocolVersion     string         `json:"protocol_version"`
	Provenance          refProvenance  `json:"provenance"`
	RequestID           *string        `json:"request_id"`
	JSONRPCID           any            `json:"jsonrpc_id"`
	CorrelationID       *string        `json:"correlation_id"`
	TaskID              *string        `json:"task_id"`
	ContextID           *string        `json:"context_id"`
	SessionID           *string        `json:"session_id"`
	MessageID           *string        `json:"message_id"`
	Timestamp           *string        `json:"timestamp"`
	IdentityOrigin      string         `json:"identity_origin"`
	Channel             *string        `json:"channel"`
	UserID              *string        `json:"user_id"`
	AgentRef            map[string]any `json:"agent_ref"`
	ChatID              *string        `json:"chat_id"`
	SourceAgentID       *string        `json:"source_agent_id"`
	AgentID             *string        `json:"agent_id"`
	ServiceID           *string        `json:"service_id"`
	WorkspaceKey        *string        `json:"workspace_key"`
	Method              *string        `json:"method"`
	Params              map[string]any `json:"params"`
	ExtMethod           *string        `json:"ext_method"`
	SessionUpdateKind   *string        `json:"session_update_kind"`
	IsStream            bool           `json:"is_stream"`
	ExpectedOutputModes []string       `json:"expected_output_modes"`
	Auth                *refAuth       `json:"auth"`
	ChannelContext      map[string]any `json:"channel_context"`
	A2AMetadata         map[string]any `json:"a2a_metadata"`
	ACPMeta             map[string]any `json:"acp_meta"`
}

type refResponse struct {
	ProtocolVersion string         `json:"protocol_version"`
	ResponseID      *string        `json:"response_id"`
	RequestID       *string        `json:"request_id"`
	Sequence        int64          `json:"sequence"`
	IsFinal         bool           `json:"is_final"`
	Status          string         `json:"status"`
	Kind            string         `json:"response_kind"`
	Timestamp       *string        `json:"timestamp"`
	Provenance      refProvenance  `json:"provenance"`
	Body            map[string]any `json:"body"`
	JSONRPCID       any            `json:"jsonrpc_id"`
	CorrelationID   *string        `json:"correlation_id"`
	TaskID          *string        `json:"task_id"`
	ContextID       *string        `json:"context_id"`
	SessionID       *string        `json:"session_id"`
	MessageID       *string        `json:"message_id"`
	IsStream        bool           `json:"is_stream"`
	IdentityOrigin  string         `json:"identity_origin"`
	Channel         *string        `json:"channel"`
	UserID          *string        `json:"user_id"`
	AgentRef        map[string]any `json:"agent_ref"`
	SourceAgentID   *string        `json:"source_agent_id"`
	Method          *string        `json:"method"`
	Projections     map[string]any `json:"projections"`
	ChannelContext  map[string]any `json:"channel_context"`
	Metadata        map[string]any `json:"metadata"`
	A2AMetadata     map[string]any `json:"a2a_metadata"`
	ACPMeta         map[string]any `json:"acp_meta"`
}

func sp(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func def(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func obj(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// refTime formats like Python's isoformat, independently of AppendTimestamp.
func refTime(tp *time.Time) *string {
	if tp == nil {
		return nil
	}
	t := tp.UTC()
	layout := "2006-01-02T15:04:05"
	switch {
	case t.Nanosecond() == 0:
	case t.Nanosecond()%1000 == 0:
		layout += ".000000"
	default:
		layout += ".000000000"
	}
	s := t.Format(layout) + "+00:00"
	return &s
}

func refID(id e2a.ID) any {
	switch {
	case id.IsNull():
		return nil
	case id.IsNumber():
		return json.Number(id.String())
	}
	return id.String()
}

func refProv(p e2a.Provenance) refProvenance {
	return refProvenance{def(p.SourceProtocol, "e2a"), sp(p.Converter), refTime(p.ConvertedAt), obj(p.Details)}
}

func toRefEnvelope(e *e2a.Envelope) refEnvelope {
	r := refEnvelope{
		ProtocolVersion: def(e.ProtocolVersion, "1.0"), Provenance: refProv(e.Provenance), RequestID: sp(e.RequestID),
		JSONRPCID: refID(e.JSONRPCID), CorrelationID: sp(e.CorrelationID), TaskID: sp(e.TaskID), ContextID: sp(e.ContextID),
		SessionID: sp(e.SessionID), MessageID: sp(e.MessageID), Timestamp: refTime(e.Timestamp),
		IdentityOrigin: def(string(e.IdentityOrigin), "user"), Channel: sp(e.Channel), UserID: sp(e.UserID),
		AgentRef: e.AgentRef, ChatID: sp(e.ChatID), SourceAgentID: sp(e.SourceAgentID),
		AgentID: sp(e.AgentID), ServiceID: sp(e.ServiceID), WorkspaceKey: sp(e.WorkspaceKey), Method: sp(e.Method),
		Params: obj(e.Params), ExtMethod: sp(e.ExtMethod), SessionUpdateKind: sp(e.SessionUpdateKind), IsStream: e.IsStream,
		ExpectedOutputModes: e.ExpectedOutputModes, ChannelContext: obj(e.ChannelContext), A2AMetadata: obj(e.A2AMetadata), ACPMeta: obj(e.ACPMeta),
	}
	if r.ExpectedOutputModes == nil {
		r.ExpectedOutputModes = []string{}
	}
	if a := e.Auth; a != nil {
		h := a.ExtraHeaders
		if h == nil {
			h = map[string]string{}
		}
		r.Auth = &refAuth{sp(a.MethodID), sp(a.BearerToken), sp(a.APIKeyRef), sp(a.CredentialRef), h, obj(a.Meta)}
	}
	return r
}

func toRefResponse(x *e2a.Response) refResponse {
	return refResponse{
		ProtocolVersion: def(x.ProtocolVersion, "1.0"), ResponseID: sp(x.ResponseID), RequestID: sp(x.RequestID), Sequence: x.Sequence,
		IsFinal: x.IsFinal, Status: def(string(x.Status), "in_progress"), Kind: string(x.Kind), Timestamp: refTime(x.Timestamp),
		Provenance: refProv(x.Provenance), Body: obj(x.Body), JSONRPCID: refID(x.JSONRPCID), CorrelationID: sp(x.CorrelationID),
		TaskID: sp(x.TaskID), ContextID: sp(x.ContextID), SessionID: sp(x.SessionID), MessageID: sp(x.MessageID), IsStream: x.IsStream,
		IdentityOrigin: def(string(x.IdentityOrigin), "agent"), Channel: sp(x.Channel), UserID: sp(x.UserID), AgentRef: x.AgentRef,
		SourceAgentID: sp(x.SourceAgentID), Method: sp(x.Method), Projections: obj(x.Projections), ChannelContext: obj(x.ChannelContext),
		Metadata: obj(x.Metadata), A2AMetadata: obj(x.A2AMetadata), ACPMeta: obj(x.ACPMeta),
	}
}

func stdEncode(t testing.TB, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func assertSameAsReference(t testing.TB, e *e2a.Envelope) {
	t.Helper()
	got, err := e2a.AppendEnvelope(nil, e)
	if err != nil {
		t.Fatal(err)
	}
	if want := stdEncode(t, toRefEnvelope(e)); !bytes.Equal(got, want) {
		t.Fatalf("encoder differs from encoding/json:\n got %s\nwant %s", got, want)
	}
}

func assertResponseSameAsReference(t testing.TB, r *e2a.Response) {
	t.Helper()
	got, err := e2a.AppendResponse(nil, r)
	if err != nil {
		t.Fatal(err)
	}
	if want := stdEncode(t, toRefResponse(r)); !bytes.Equal(got, want) {
		t.Fatalf("encoder differs from encoding/json:\n got %s\nwant %s", got, want)
	}
}

// TestEncoderMatchesEncodingJSON compares the hand-rolled encoder with
// encoding/json byte for byte on every golden input that decodes and on 3000
// generated envelopes and frames full of awkward strings and numbers.
func TestEncoderMatchesEncodingJSON(t *testing.T) {
	n := 0
	files, _ := filepath.Glob(filepath.Join("testdata", "*", "*.json"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if e, err := e2a.DecodeEnvelope(data, e2a.Limits{}); err == nil {
			assertSameAsReference(t, e)
			n++
		}
		if r, err := e2a.DecodeResponse(data, e2a.Limits{}); err == nil {
			assertResponseSameAsReference(t, r)
			n++
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 1500; i++ {
		e := randomEnvelope(rng)
		assertSameAsReference(t, e)
		assertEnvelopeRoundTrip(t, e)
		r := randomResponse(rng)
		assertResponseSameAsReference(t, r)
		assertResponseRoundTrip(t, r)
		n += 2
	}
	if n < 3000 {
		t.Fatalf("only %d inputs compared", n)
	}
}

var awkward = []string{
	"", "plain", "<script>&amp;</script>", "quote\"back\\slash", "tab\tnl\ncr\r", "\x00\x01\x1f\x7f",
	"\b\f", "é ü 中文 😀", "\u2028\u2029", "\ufffd", "a/b", "{/workflow/x}", "null", "0",
}

func randomString(rng *rand.Rand) string {
	if rng.IntN(3) == 0 {
		b := make([]rune, rng.IntN(12))
		for i := range b {
			b[i] = rune(rng.IntN(0x2100))
			if b[i] >= 0xD800 && b[i] <= 0xDFFF {
				b[i] = 'x'
			}
		}
		return string(b)
	}
	return awkward[rng.IntN(len(awkward))]
}

func randomNumber(rng *rand.Rand) float64 {
	switch rng.IntN(6) {
	case 0:
		return float64(rng.IntN(1 << 20))
	case 1:
		return -float64(rng.Int64N(1 << 52))
	case 2:
		return rng.Float64() * math.Pow(10, float64(rng.IntN(60)-30))
	case 3:
		return []float64{0, 1e21, 1e20, 1e-6, 1e-7, 123456789e-15, 0.1, -0.5, 5e-324, math.MaxFloat64}[rng.IntN(10)]
	}
	return rng.NormFloat64() * 1e6
}

func randomValue(rng *rand.Rand, depth int) any {
	k := rng.IntN(7)
	if depth > 3 {
		k = rng.IntN(4)
	}
	switch k {
	case 0:
		return nil
	case 1:
		return rng.IntN(2) == 0
	case 2:
		return randomNumber(rng)
	case 3:
		return randomString(rng)
	case 4:
		l := make([]any, rng.IntN(4))
		for i := range l {
			l[i] = randomValue(rng, depth+1)
		}
		return l
	}
	if m := randomMap(rng, depth+1); m != nil {
		return m
	}
	return map[string]any{} // a nested {} stays {} (only top-level maps read back as nil)
}

func randomMap(rng *rand.Rand, depth int) map[string]any {
	n := rng.IntN(5)
	if n == 0 {
		return nil
	}
	m := map[string]any{}
	for i := 0; i < n; i++ {
		m[randomString(rng)+fmt.Sprint(i)] = randomValue(rng, depth)
	}
	return m
}

func randomTime(rng *rand.Rand) *time.Time {
	switch rng.IntN(5) {
	case 0:
		return nil
	case 1:
		return e2a.Time(time.Unix(rng.Int64N(4e9), 0))
	case 2:
		return e2a.Time(time.Unix(rng.Int64N(4e9), int64(rng.IntN(1e6))*1000))
	case 3: // year 1 is a time, not null
		return e2a.Time(time.Time{}.Add(time.Duration(rng.IntN(2)) * time.Microsecond))
	}
	return e2a.Time(time.Unix(rng.Int64N(4e9), int64(rng.IntN(1e9))))
}

func randomID(rng *rand.Rand) e2a.ID {
	switch rng.IntN(3) {
	case 0:
		return e2a.ID{}
	case 1:
		return e2a.IntID(rng.Int64N(1<<40) - 1<<39)
	}
	return e2a.StringID(randomString(rng) + "x")
}

func maybe(rng *rand.Rand) string {
	if rng.IntN(2) == 0 {
		return ""
	}
	return randomString(rng)
}

func randomProvenance(rng *rand.Rand) e2a.Provenance {
	p := e2a.Provenance{SourceProtocol: []string{"", "e2a", "acp", "a2a"}[rng.IntN(4)], Converter: maybe(rng), ConvertedAt: randomTime(rng), Details: randomMap(rng, 1)}
	if rng.IntN(4) == 0 { // details keeps a JSON-RPC id beyond 2^53 as a number
		p.Details = map[string]any{"jsonrpc_id": e2a.IntID(math.MaxInt64 - rng.Int64N(1<<40)).Value()}
	}
	return p
}

// tenantID is a value agent_id, service_id or workspace_key reads back as:
// "" or a string with no white space at either end.
func tenantID(rng *rand.Rand) string {
	return strings.TrimSpace(strings.Trim(maybe(rng), "\x1c\x1d\x1e\x1f"))
}

func randomEnvelope(rng *rand.Rand) *e2a.Envelope {
	e := &e2a.Envelope{
		ProtocolVersion: []string{"", "1.0", "1.7"}[rng.IntN(3)], Provenance: randomProvenance(rng),
		RequestID: maybe(rng), JSONRPCID: randomID(rng), CorrelationID: maybe(rng), TaskID: maybe(rng), ContextID: maybe(rng),
		SessionID: maybe(rng), MessageID: maybe(rng), Timestamp: randomTime(rng),
		IdentityOrigin: []e2a.IdentityOrigin{"", "user", "agent", "system", "service"}[rng.IntN(5)],
		Channel:        maybe(rng), UserID: maybe(rng), ChatID: maybe(rng), SourceAgentID: maybe(rng), Method: maybe(rng),
		AgentID: tenantID(rng), ServiceID: tenantID(rng), WorkspaceKey: tenantID(rng),
		Params: randomMap(rng, 0), IsStream: rng.IntN(2) == 0, ChannelContext: randomMap(rng, 0),
		A2AMetadata: randomMap(rng, 0), ACPMeta: randomMap(rng, 0),
	}
	if e.Method == "ext" {
		e.ExtMethod = "x"
	}
	if e.AgentID == "" { // in the form decoding gives: agent_id falls back to source_agent_id
		e.AgentID = strings.TrimSpace(strings.Trim(e.SourceAgentID, "\x1c\x1d\x1e\x1f"))
	}
	delete(e.Params, "files")
	delete(e.Params, "attachments")
	if rng.IntN(2) == 0 {
		e.AgentRef = map[string]any{}
		for k, v := range randomMap(rng, 1) {
			e.AgentRef[k] = v
		}
	}
	for i := rng.IntN(3); i > 0; i-- {
		e.ExpectedOutputModes = append(e.ExpectedOutputModes, randomString(rng))
	}
	if rng.IntN(2) == 0 {
		e.Auth = &e2a.Auth{MethodID: maybe(rng), BearerToken: maybe(rng), APIKeyRef: maybe(rng), CredentialRef: maybe(rng), Meta: randomMap(rng, 1)}
		if rng.IntN(2) == 0 {
			e.Auth.ExtraHeaders = map[string]string{randomString(rng): randomString(rng)}
		}
	}
	return e
}

func randomResponse(rng *rand.Rand) *e2a.Response {
	r := &e2a.Response{
		ProtocolVersion: []string{"", "1.0"}[rng.IntN(2)], ResponseID: randomString(rng) + "r", RequestID: randomString(rng) + "q",
		Sequence: rng.Int64N(1 << 40), IsFinal: rng.IntN(2) == 0, Status: e2a.Statuses[rng.IntN(3)], Kind: e2a.Kinds[rng.IntN(len(e2a.Kinds))],
		Timestamp: randomTime(rng), Provenance: randomProvenance(rng), Body: randomMap(rng, 0), JSONRPCID: randomID(rng),
		CorrelationID: maybe(rng), TaskID: maybe(rng), ContextID: maybe(rng), SessionID: maybe(rng), MessageID: maybe(rng),
		IsStream: rng.IntN(2) == 0, IdentityOrigin: e2a.IdentityOrigins[rng.IntN(4)], Channel: maybe(rng), UserID: maybe(rng),
		SourceAgentID: maybe(rng), Method: maybe(rng), Projections: randomMap(rng, 0), ChannelContext: randomMap(rng, 0),
		Metadata: randomMap(rng, 0), A2AMetadata: randomMap(rng, 0), ACPMeta: randomMap(rng, 0),
	}
	if r.Timestamp == nil { // required in a frame
		r.Timestamp = e2a.Time(time.Unix(1, 0))
	}
	return r
}
