package e2a

// Limits bound what the decoder reads. A zero field means its default.
type Limits struct {
	// MaxBytes bounds one encoded envelope or frame. Default 1 MiB for an
	// envelope (RESOLUTIONS' document limit) and 16 MiB for a response frame,
	// whose body may carry a whole execution result.
	MaxBytes int
	// MaxDepth bounds the nesting of objects and arrays, the envelope itself
	// counting as 1. Default 64: deep enough for any real document, shallow
	// enough that hostile input cannot exhaust the stack.
	MaxDepth int
}

// Default limits.
const (
	DefaultMaxEnvelopeBytes = 1 << 20
	DefaultMaxResponseBytes = 16 << 20
	DefaultMaxDepth         = 64
)

func (l Limits) withDefaults(maxBytes int) Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = maxBytes
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	return l
}
