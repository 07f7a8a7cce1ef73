package a2s

// Limits bound what Parse accepts, so a hostile document cannot exhaust memory
// or stack. Zero fields take the defaults.
type Limits struct {
	// MaxBytes is the largest document (default 1 MiB, RESOLUTIONS' document
	// limit).
	MaxBytes int
	// MaxDepth is the deepest nesting of arrays and objects (default 64).
	MaxDepth int
	// MaxNodes bounds the values of the tree counting every YAML alias
	// expansion in full (default 200000): it defeats "billion laughs".
	MaxNodes int
}

// Default limits.
const (
	DefaultMaxBytes = 1 << 20
	DefaultMaxDepth = 64
	DefaultMaxNodes = 200_000
)

func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	if l.MaxNodes <= 0 {
		l.MaxNodes = DefaultMaxNodes
	}
	return l
}
