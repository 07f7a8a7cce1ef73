package e2a_test

import (
	"strings"
	"testing"

	"github.com/sluicehq/sluice/protocol/e2a"
)

const okChunk = `{"protocol_version":"1.0","response_id":"%s","request_id":"a","sequence":%s,"is_final":false,"status":"in_progress","response_kind":"e2a.chunk","timestamp":"2026-03-29T12:00:00+00:00","provenance":{},"body":{"delta_kind":"text","delta":"x"}}`

func chunkLine(id, seq string) string {
	return strings.Replace(strings.Replace(okChunk, "%s", id, 1), "%s", seq, 1)
}

func TestCheckOptions(t *testing.T) {
	open := chunkLine("r0", "0") + "\n" + chunkLine("r1", "1") + "\n"
	rep, _ := e2a.Check(strings.NewReader(open), e2a.CheckOptions{})
	if rep.OK || len(rep.Violations) != 1 || rep.Violations[0].Rule != e2a.RuleMissingFinal {
		t.Fatalf("missing final: %+v", rep)
	}
	rep, _ = e2a.Check(strings.NewReader(open), e2a.CheckOptions{AllowOpen: true})
	if !rep.OK {
		t.Fatalf("AllowOpen: %+v", rep)
	}

	bad := strings.Repeat("junk\n", 20)
	rep, _ = e2a.Check(strings.NewReader(bad), e2a.CheckOptions{MaxViolations: 5})
	if rep.OK || !rep.Truncated || len(rep.Violations) != 5 {
		t.Fatalf("MaxViolations: %+v", rep)
	}
	rep, _ = e2a.Check(strings.NewReader(open+open+open), e2a.CheckOptions{MaxFrames: 2, AllowOpen: true})
	if rep.OK || !rep.Truncated || rep.Frames != 2 {
		t.Fatalf("MaxFrames: %+v", rep)
	}

	long := `{"x":"` + strings.Repeat("a", 600) + `"}` + "\n" + chunkLine("r0", "0") + "\n"
	rep, _ = e2a.Check(strings.NewReader(long), e2a.CheckOptions{Limits: e2a.Limits{MaxBytes: 400}, AllowOpen: true})
	if len(rep.Violations) != 1 || rep.Violations[0].Line != 1 || !strings.Contains(rep.Violations[0].Message, "longer than 400") || rep.Frames != 1 {
		t.Fatalf("long line: %+v", rep)
	}
	// Without a final newline the last line still counts.
	rep, _ = e2a.Check(strings.NewReader(chunkLine("r0", "0")), e2a.CheckOptions{AllowOpen: true})
	if !rep.OK || rep.Frames != 1 {
		t.Fatalf("last line: %+v", rep)
	}
}
