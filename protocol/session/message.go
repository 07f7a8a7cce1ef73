package session

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"slices"
	"time"
)

// Version is the protocol version sluice speaks and writes in `a2e`.
const Version = "1.0"

// Header holds the base fields every message has. Message types embed it.
// On input `version` is read as an alias of `a2e`.
type Header struct {
	A2E  string  `json:"a2e"`  // protocol version, "1.0"
	Type string  `json:"type"` // e.g. "tool/call/req"
	ID   string  `json:"id"`   // 32 hex characters, unique per message
	TS   float64 `json:"ts"`   // Unix time in seconds
}

// Head returns h; it makes every type that embeds a Header a Message.
func (h *Header) Head() *Header { return h }

// Time is TS as a time.Time (the zero time when TS is 0).
func (h *Header) Time() time.Time {
	if h.TS == 0 {
		return time.Time{}
	}
	return TimeOf(h.TS)
}

// Message is one A2E message. Every type of this package is one (as a
// pointer), and so is a plugin's type that embeds Header and names its type.
type Message interface {
	Head() *Header
	// MessageType is the wire type the Go type stands for, e.g.
	// "tool/call/req". It must not read its receiver's fields (the registry
	// calls it on a nil pointer) except for *Generic, which has none of its own.
	MessageType() string
}

// Ref is the req_id of a response or an event: the id of the request it
// answers. Response types embed it; RequestID finds it on any of them.
type Ref struct {
	ReqID string `json:"req_id" a2e:"required,id"`
}

// RequestID returns the id of the request r answers.
func (r *Ref) RequestID() string { return r.ReqID }

// Correlated is a message that answers a request: every response, event and
// `error` (whose req_id may be empty).
type Correlated interface {
	Message
	RequestID() string
}

// Generic is a message of a type nothing registered: its base fields and the
// rest of its fields as raw JSON, so nothing is lost. The server answers
// unknown_type to one that nothing handles; a plugin may route it instead.
type Generic struct {
	Header
	Fields map[string]json.RawMessage // every key but the base ones
}

// MessageType is the type the message came with.
func (g *Generic) MessageType() string {
	if g == nil {
		return ""
	}
	return g.Type
}

// RequestID is the message's req_id when it has a string one, so that a reply
// of a type this side does not know still reaches the call waiting for it.
func (g *Generic) RequestID() string {
	var s string
	if raw, ok := g.Fields["req_id"]; ok && json.Unmarshal(raw, &s) == nil {
		return s
	}
	return ""
}

// MarshalJSON writes the base fields, then the others in key order.
func (g *Generic) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	h, err := json.Marshal(&g.Header)
	if err != nil {
		return nil, err
	}
	b.Write(h[:len(h)-1]) // without the closing brace
	keys := make([]string, 0, len(g.Fields))
	for k := range g.Fields {
		if !isBaseKey(k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		kb, _ := json.Marshal(k) // a string: cannot fail
		b.WriteByte(',')
		b.Write(kb)
		b.WriteByte(':')
		v := g.Fields[k]
		if len(v) == 0 {
			v = json.RawMessage("null")
		}
		if err := json.Compact(&b, v); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func isBaseKey(k string) bool {
	switch k {
	case "a2e", "version", "type", "id", "ts":
		return true
	}
	return false
}

// NewID returns a fresh message id: a random UUID (version 4) as 32 lowercase
// hex characters, as Python's uuid4().hex writes it.
func NewID() string {
	var u [16]byte
	_, _ = rand.Read(u[:]) // crypto/rand.Read never fails (Go 1.24+)
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return hex.EncodeToString(u[:])
}

// ValidID reports whether s is a message id: 32 hex characters (either case).
func ValidID(s string) bool {
	if len(s) != 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// TS returns t as float seconds since the Unix epoch, to the microsecond (a
// float64 holds no more at today's epoch).
func TS(t time.Time) float64 { return float64(t.UnixMicro()) / 1e6 }

// TimeOf returns the time of float seconds ts, rounded to the microsecond.
func TimeOf(ts float64) time.Time {
	return time.UnixMicro(int64(ts*1e6 + 0.5*sign(ts))).UTC()
}

func sign(f float64) float64 {
	if f < 0 {
		return -1
	}
	return 1
}

// Stamper fills the base fields of outgoing messages. The zero value uses
// time.Now and NewID; tests inject a fixed clock and ids.
type Stamper struct {
	Now   func() time.Time
	NewID func() string
}

// Stamp fills what m's header leaves empty: a2e (Version), type
// (m.MessageType()), id and ts. It returns m.
func (s Stamper) Stamp(m Message) Message {
	h := m.Head()
	if h.A2E == "" {
		h.A2E = Version
	}
	if h.Type == "" {
		h.Type = m.MessageType()
	}
	if h.ID == "" {
		if s.NewID != nil {
			h.ID = s.NewID()
		} else {
			h.ID = NewID()
		}
	}
	if h.TS == 0 {
		now := time.Now
		if s.Now != nil {
			now = s.Now
		}
		h.TS = TS(now())
	}
	return m
}
