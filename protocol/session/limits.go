package session

// Limits bound what the codec reads and writes. A zero field takes its default.
type Limits struct {
	// MaxLineBytes bounds one line (one message), without its newline.
	// Default 1 MiB. The server announces its value in the handshake.
	MaxLineBytes int
	// MaxDepth bounds the nesting of objects and arrays, the message itself
	// counting as 1, so that hostile input cannot exhaust the stack of whatever
	// decodes a tool's arguments next. Default 64.
	MaxDepth int
}

// Default limits.
const (
	DefaultMaxLineBytes = 1 << 20
	DefaultMaxDepth     = 64
)

// MaxHandshakeBytes bounds what a host reads of a session before its
// handshake is accepted: the first message (handshake/req, a few hundred
// bytes: ids, namespaces and a key) on a stream, the first frame on a
// WebSocket. Only an authenticated peer may send lines up to the session's
// MaxLineBytes, so an unauthenticated one cannot make a host hold them.
const MaxHandshakeBytes = 8 << 10

func (l Limits) withDefaults() Limits {
	if l.MaxLineBytes <= 0 {
		l.MaxLineBytes = DefaultMaxLineBytes
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	return l
}
