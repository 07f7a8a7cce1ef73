package natsq

import (
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// key turns a topic or an item id into one subject token that is also a valid
// consumer name: itself when it is short and made of [A-Za-z0-9_-] (readable
// in nats CLI listings), otherwise "~" and the base64url SHA-256 of it. The
// two forms cannot meet ('~' is outside the plain set), and the real topic and
// id travel in headers, so the hash need not be reversible.
func key(s string) string {
	if len(s) <= 64 && plain(s) {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	return "~" + base64.RawURLEncoding.EncodeToString(sum[:])
}

func plain(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// subjects of one queue under its prefix P:
//
//	P.q.TOPIC.ID  an item, visible to the topic's consumer
//	P.s.TOPIC.ID  an item scheduled for later (Message.NotBefore); the server
//	              moves it to P.q.TOPIC.ID when its time comes
//	P.w.TOPIC     wake-ups, plain NATS (not in the stream)
type names struct{ prefix string }

func (n names) item(topic, id string) string  { return n.prefix + ".q." + key(topic) + "." + key(id) }
func (n names) sched(topic, id string) string { return n.prefix + ".s." + key(topic) + "." + key(id) }

// anyState matches both the queued and the scheduled subject of an id, so
// one "no message yet" check covers both.
func (n names) anyState(topic, id string) string {
	return n.prefix + ".*." + key(topic) + "." + key(id)
}
func (n names) filter(topic string) string   { return n.prefix + ".q." + key(topic) + ".>" }
func (n names) wake(topic string) string     { return n.prefix + ".w." + key(topic) }
func (n names) consumer(topic string) string { return "q-" + key(topic) }
func (n names) streamSubjects() []string     { return []string{n.prefix + ".q.>", n.prefix + ".s.>"} }

// validPrefix: dot-separated tokens without wildcards or whitespace.
func validPrefix(p string) bool {
	if p == "" || strings.ContainsAny(p, " \t\r\n*>") {
		return false
	}
	for _, tok := range strings.Split(p, ".") {
		if tok == "" {
			return false
		}
	}
	return true
}

// ackToken is what a lease token says: the ack subject of one delivery,
// $JS.ACK.<stream>.<consumer>.<delivered>.<sseq>.<dseq>.<ts>.<pending> or its
// longer form with a domain and an account hash after $JS.ACK.
type ackToken struct {
	stream, consumer string
	delivered        uint64
	seq              uint64
}

func parseToken(s string) (ackToken, bool) {
	if !strings.HasPrefix(s, "$JS.ACK.") {
		return ackToken{}, false
	}
	t := strings.Split(s, ".")
	var off int
	switch {
	case len(t) == 9:
		off = 2
	case len(t) >= 11:
		off = 4
	default:
		return ackToken{}, false
	}
	dc, ok1 := number(t[off+2])
	seq, ok2 := number(t[off+3])
	if !ok1 || !ok2 || t[off] == "" || t[off+1] == "" || seq == 0 || dc == 0 {
		return ackToken{}, false
	}
	return ackToken{stream: t[off], consumer: t[off+1], delivered: dc, seq: seq}, true
}

func number(s string) (uint64, bool) {
	if s == "" || len(s) > 19 {
		return 0, false
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + uint64(s[i]-'0')
	}
	return n, true
}
