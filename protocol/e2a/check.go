package e2a

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
)

// CheckFrame checks one frame on its own: the L1 fields §12.4 requires, the
// status words of RESOLUTIONS (a non-final frame is in_progress, a final one
// succeeded or failed; e2a.complete succeeds, e2a.error fails, both end the
// stream; a chunk never does), and the L2 body shape of §12.5 for the kinds
// that define one. StreamWriter refuses a frame that fails it.
func CheckFrame(r *Response) error {
	switch {
	case r.ResponseID == "":
		return &Error{Path: "response_id", Message: "is required"}
	case r.RequestID == "":
		return &Error{Path: "request_id", Message: "is required"}
	case r.Sequence < 0:
		return &Error{Path: "sequence", Message: "must not be negative"}
	case r.Timestamp == nil:
		return &Error{Path: "timestamp", Message: "is required"}
	case !r.Status.Valid():
		return &Error{Path: "status", Message: fmt.Sprintf("%q is not one of succeeded, failed, in_progress", r.Status)}
	case !r.Kind.Valid():
		return &Error{Path: "response_kind", Message: fmt.Sprintf("%q is not a response kind", r.Kind), Suggestions: didYouMean(string(r.Kind), kindNames())}
	case r.IsFinal && r.Status == StatusInProgress:
		return &Error{Path: "status", Message: "a final frame must be succeeded or failed, not in_progress"}
	case !r.IsFinal && r.Status != StatusInProgress:
		return &Error{Path: "status", Message: fmt.Sprintf("a frame that is not final is in_progress, not %s", r.Status)}
	}
	switch r.Kind {
	case KindComplete:
		if !r.IsFinal || r.Status != StatusSucceeded {
			return &Error{Path: "status", Message: "e2a.complete is the final, succeeded frame"}
		}
		if _, ok := r.Body["result"]; !ok {
			return &Error{Path: "body.result", Message: "is required for e2a.complete"}
		}
	case KindError:
		if !r.IsFinal || r.Status != StatusFailed {
			return &Error{Path: "status", Message: "e2a.error is the final, failed frame"}
		}
		switch c := r.Body["code"].(type) {
		case string:
			if c == "" {
				return &Error{Path: "body.code", Message: "must not be empty"}
			}
		default:
			if _, ok := jsonInt(c); !ok {
				return &Error{Path: "body.code", Message: "is required: a snake_case string (or an integer code)"}
			}
		}
		if _, ok := r.Body["message"].(string); !ok {
			return &Error{Path: "body.message", Message: "is required and must be a string"}
		}
	case KindChunk:
		if r.IsFinal {
			return &Error{Path: "is_final", Message: "an e2a.chunk never ends the stream; end it with e2a.complete or e2a.error"}
		}
		dk, _ := r.Body["delta_kind"].(string)
		if !contains(DeltaKinds, dk) {
			return &Error{Path: "body.delta_kind", Message: fmt.Sprintf("%q is not one of %s", dk, joinList(DeltaKinds)), Suggestions: didYouMean(dk, DeltaKinds)}
		}
		switch r.Body["delta"].(type) {
		case string, map[string]any, []any:
		default:
			return &Error{Path: "body.delta", Message: "is required: a string or a structured value"}
		}
		if mt, ok := r.Body["mime_type"]; ok && mt != nil {
			if _, ok := mt.(string); !ok {
				return &Error{Path: "body.mime_type", Message: "must be a string"}
			}
		}
	case KindACPSessionUpdate:
		update, _ := r.Body["update"].(map[string]any)
		if s, _ := update["sessionUpdate"].(string); s == "" {
			if s, _ := r.Body["sessionUpdate"].(string); s == "" {
				return &Error{Path: "body.update.sessionUpdate", Message: "is required for acp.session_update"}
			}
		}
	case KindACPJSONRPCError:
		if _, ok := jsonInt(r.Body["code"]); !ok {
			return &Error{Path: "body.code", Message: "is required: an integer JSON-RPC error code"}
		}
		if _, ok := r.Body["message"].(string); !ok {
			return &Error{Path: "body.message", Message: "is required and must be a string"}
		}
	case KindA2AStreamEvent:
		b, _ := r.Body["branch"].(string)
		if !contains(StreamBranches, b) {
			return &Error{Path: "body.branch", Message: fmt.Sprintf("%q is not one of %s", b, joinList(StreamBranches)), Suggestions: didYouMean(b, StreamBranches)}
		}
		if _, ok := r.Body["payload"].(map[string]any); !ok {
			return &Error{Path: "body.payload", Message: "is required and must be an object"}
		}
	case KindExt:
		if m, _ := r.Body["ext_method"].(string); m == "" {
			return &Error{Path: "body.ext_method", Message: "is required for ext"}
		}
	}
	return nil
}

// Rules a recorded stream is checked against (Violation.Rule).
const (
	RuleInvalidFrame        = "invalid_frame"         // the line is not a frame (JSON, fields, types)
	RuleFrame               = "frame"                 // CheckFrame refuses the frame
	RuleSequenceStart       = "sequence_start"        // a request's first frame is not sequence 0
	RuleSequenceOrder       = "sequence_order"        // a sequence is not the previous one plus 1
	RuleAfterFinal          = "after_final"           // a frame follows the request's final frame
	RuleMissingFinal        = "missing_final"         // a request has no final frame
	RuleDuplicateResponseID = "duplicate_response_id" // response_id is not unique
)

// Violation is one broken rule of a recorded stream.
type Violation struct {
	Line       int    `json:"line,omitempty"` // 1-based line; 0 for a request-level problem
	RequestID  string `json:"request_id,omitempty"`
	ResponseID string `json:"response_id,omitempty"`
	Sequence   *int64 `json:"sequence,omitempty"`
	Rule       string `json:"rule"`
	Message    string `json:"message"`
}

// Report is the outcome of Check.
type Report struct {
	OK         bool        `json:"ok"`
	Frames     int         `json:"frames"`   // lines that decoded as frames
	Requests   int         `json:"requests"` // distinct request ids
	Violations []Violation `json:"violations"`
	// Truncated says checking stopped at MaxViolations or MaxFrames.
	Truncated bool `json:"truncated,omitempty"`
}

// CheckOptions tune Check. Zero values take the defaults.
type CheckOptions struct {
	// AllowOpen accepts requests without a final frame: §12.3 allows a missing
	// final frame after a disconnect or crash, so a recording cut short may
	// pass with it.
	AllowOpen bool
	// Limits bound each line (default 16 MiB, 64 levels).
	Limits Limits
	// MaxViolations stops the check after so many (default 1000).
	MaxViolations int
	// MaxFrames stops the check after so many lines (default 1,000,000), which
	// bounds the memory the per-request state takes.
	MaxFrames int
}

type requestState struct {
	firstLine int
	last      int64
	finalLine int
}

// Check reads an NDJSON recording of frames (blank lines skipped, CRLF
// accepted) and reports every broken invariant of §12.3 and every frame
// CheckFrame refuses. Frames of several requests may interleave; the order
// checked is the order recorded. The error is only for a failure to read.
func Check(r io.Reader, opts CheckOptions) (*Report, error) {
	lim := opts.Limits.withDefaults(DefaultMaxResponseBytes)
	if opts.MaxViolations <= 0 {
		opts.MaxViolations = 1000
	}
	if opts.MaxFrames <= 0 {
		opts.MaxFrames = 1_000_000
	}
	rep := &Report{Violations: []Violation{}}
	add := func(v Violation) bool {
		if len(rep.Violations) >= opts.MaxViolations {
			rep.Truncated = true
			return false
		}
		rep.Violations = append(rep.Violations, v)
		return true
	}
	reqs := map[string]*requestState{}
	var order []string
	ids := map[string]int{}
	br := bufio.NewReaderSize(r, 64<<10)
	for lineNo := 1; ; lineNo++ {
		line, tooLong, err := readLine(br, lim.MaxBytes)
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		atEOF := errors.Is(err, io.EOF)
		if tooLong {
			if !add(Violation{Line: lineNo, Rule: RuleInvalidFrame, Message: fmt.Sprintf("line is longer than %d bytes", lim.MaxBytes)}) {
				break
			}
		} else if len(bytes.TrimSpace(line)) > 0 {
			if rep.Frames+len(rep.Violations) >= opts.MaxFrames {
				rep.Truncated = true
				break
			}
			if !checkLine(line, lineNo, lim, reqs, &order, ids, rep, add) {
				break
			}
		}
		if atEOF {
			break
		}
	}
	if !opts.AllowOpen && !rep.Truncated {
		for _, id := range order {
			if st := reqs[id]; st.finalLine == 0 {
				if !add(Violation{RequestID: id, Rule: RuleMissingFinal, Message: fmt.Sprintf("request %q (from line %d) has no final frame", id, st.firstLine)}) {
					break
				}
			}
		}
	}
	rep.Requests = len(reqs)
	rep.OK = len(rep.Violations) == 0 && !rep.Truncated
	return rep, nil
}

// checkLine checks one frame; false means stop (too many violations).
func checkLine(line []byte, lineNo int, lim Limits, reqs map[string]*requestState, order *[]string, ids map[string]int,
	rep *Report, add func(Violation) bool) bool {
	f, err := DecodeResponse(line, lim)
	if err != nil {
		return add(Violation{Line: lineNo, Rule: RuleInvalidFrame, Message: err.Error()})
	}
	rep.Frames++
	seq := f.Sequence
	v := func(rule, format string, args ...any) bool {
		return add(Violation{Line: lineNo, RequestID: f.RequestID, ResponseID: f.ResponseID, Sequence: &seq, Rule: rule, Message: fmt.Sprintf(format, args...)})
	}
	if err := CheckFrame(f); err != nil && !v(RuleFrame, "%s", err.Error()) {
		return false
	}
	if prev, dup := ids[f.ResponseID]; dup {
		if !v(RuleDuplicateResponseID, "response_id %q was already used on line %d", f.ResponseID, prev) {
			return false
		}
	} else {
		ids[f.ResponseID] = lineNo
	}
	st, seen := reqs[f.RequestID]
	if !seen {
		st = &requestState{firstLine: lineNo, last: -1}
		reqs[f.RequestID] = st
		*order = append(*order, f.RequestID)
	}
	switch {
	case st.finalLine > 0:
		if !v(RuleAfterFinal, "frame after the final frame of line %d", st.finalLine) {
			return false
		}
	case !seen && seq != 0:
		if !v(RuleSequenceStart, "the first frame of request %q has sequence %d, not 0", f.RequestID, seq) {
			return false
		}
	case seen && seq != st.last+1:
		if !v(RuleSequenceOrder, "sequence %d follows %d; expected %d", seq, st.last, st.last+1) {
			return false
		}
	}
	st.last = max(st.last, seq)
	if f.IsFinal && st.finalLine == 0 {
		st.finalLine = lineNo
	}
	return true
}

// readLine reads one line without its ending. A line longer than limit is
// consumed and reported as tooLong.
func readLine(br *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) > limit+2 { // +2: the line ending
			tooLong = true
			buf = buf[:0]
		} else if !tooLong {
			buf = append(buf, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		buf = bytes.TrimRight(buf, "\r\n")
		return slices.Clip(buf), tooLong, err
	}
}
