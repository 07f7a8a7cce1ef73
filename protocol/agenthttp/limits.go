package agenthttp

// Bounds of the decoders. A Limits zero field takes the default.
const (
	// DefaultMaxResponseBytes bounds an agent's answer (RESOLUTIONS bound
	// ApiCall responses at 10 MiB; agents get the same).
	DefaultMaxResponseBytes = 10 << 20
	// DefaultMaxRequestBytes bounds a task request an agent decodes.
	DefaultMaxRequestBytes = 10 << 20
	// DefaultMaxEntryBytes bounds a registry entry.
	DefaultMaxEntryBytes = 64 << 10
	// DefaultMaxMessageBytes bounds a queue message.
	DefaultMaxMessageBytes = 10 << 20
	// DefaultMaxDepth bounds the nesting of arrays and objects.
	DefaultMaxDepth = 64
	// MaxTaskIDBytes bounds task, run, step and correlation ids.
	MaxTaskIDBytes = 256
	// MaxErrorMessageBytes bounds the agent's error text kept from an
	// answer: enough for a useful message, never a whole page.
	MaxErrorMessageBytes = 1024
)

// Limits bound a decoder.
type Limits struct {
	MaxBytes int // 0: the decoder's default
	MaxDepth int // 0: DefaultMaxDepth
}

func (l Limits) orDefault(bytes int) Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = bytes
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	return l
}
