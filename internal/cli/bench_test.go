package cli_test

import (
	"encoding/json"
	"testing"
)

// A short run of every phase: the harness works end to end (figures are
// never asserted, only that every call succeeded and was counted).
func TestBenchServeRuns(t *testing.T) {
	code, out, errOut := sluice(t, "", "bench", "serve", "--clients", "2", "--duration", "300ms", "--warmup", "50ms", "--json", "--data", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	var rep struct {
		Phases []struct {
			Name     string
			Requests int64
			Errors   int64
		}
		Ratio float64 `json:"apicall_vs_direct_ratio"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Phases) != 3 || rep.Ratio <= 0 {
		t.Fatalf("report: %s", out)
	}
	for _, p := range rep.Phases {
		if p.Requests == 0 || p.Errors != 0 {
			t.Fatalf("phase %s: %d requests, %d errors", p.Name, p.Requests, p.Errors)
		}
	}
	if code, _, _ := sluice(t, "", "bench", "serve", "--phases", "nope", "--duration", "10ms"); code == 0 {
		t.Fatal("an unknown phase ran")
	}
}
