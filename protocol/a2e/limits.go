package a2e

// Limits bound what the decoder reads. A zero field means its default.
type Limits struct {
	// MaxLineBytes bounds one JSONL line (without its line ending), or one message
	// of a JSON array. Default 256 KiB.
	MaxLineBytes int
	// MaxDocumentBytes bounds the whole document. Default 1 MiB (RESOLUTIONS).
	MaxDocumentBytes int64
	// MaxMessages bounds the number of messages; in a legacy document each
	// operation counts as one. Default 1000: far above any maxOperations an
	// account is given, low enough that a flood of tiny lines stays cheap.
	MaxMessages int
}

// Default limits.
const (
	DefaultMaxLineBytes     = 256 << 10
	DefaultMaxDocumentBytes = 1 << 20
	DefaultMaxMessages      = 1000
)

// MaxIDLength bounds an operationId or executionId: ids end up in logs, result
// keys and audit records, so they stay short.
const MaxIDLength = 128

// maxErrors bounds how many problems Parse collects; maxLineErrors bounds how many
// one message may report. Both keep a hostile document from producing an
// unbounded report.
const (
	maxErrors     = 100
	maxLineErrors = 20
)

// DefaultLimits returns the default limits.
func DefaultLimits() Limits {
	return Limits{
		MaxLineBytes:     DefaultMaxLineBytes,
		MaxDocumentBytes: DefaultMaxDocumentBytes,
		MaxMessages:      DefaultMaxMessages,
	}
}

// withDefaults fills zero (or negative) fields with the defaults.
func (l Limits) withDefaults() Limits {
	if l.MaxLineBytes <= 0 {
		l.MaxLineBytes = DefaultMaxLineBytes
	}
	if l.MaxDocumentBytes <= 0 {
		l.MaxDocumentBytes = DefaultMaxDocumentBytes
	}
	if l.MaxMessages <= 0 {
		l.MaxMessages = DefaultMaxMessages
	}
	return l
}

// The problems of a document over a limit, named alike whether the document
// was read from text (Parse, ParseMessages) or encoded from values
// (EncodeDocument).
func lineTooLong(line, n, limit int) *Error {
	return errorf(line, "", "the line is %d bytes long; the limit is %d bytes", n, limit).
		suggest("Keep each message on one line and large data out of the workflow: fetch it with an operation")
}

func documentTooLarge(line int, limit int64) *Error {
	return errorf(line, "", "the document is larger than the limit of %d bytes", limit)
}

func tooManyMessages(line, limit int) *Error {
	return errorf(line, "", "the document has more than %d messages", limit)
}
