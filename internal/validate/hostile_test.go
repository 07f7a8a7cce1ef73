package validate_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/validate"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// Hostile shapes finish with a bounded report. (How fast is measured by the
// benchmarks and was checked by hand: each takes well under a second.)
func TestHostileShapes(t *testing.T) {
	big := opts()
	big.Limits.MaxOperations = 5000
	big.Limits.Document = a2e.Limits{MaxLineBytes: 16 << 20, MaxDocumentBytes: 64 << 20, MaxMessages: 10000}

	// A chain of Conditionals whose branches both run the next: 2^n ways through.
	var chain []string
	for i := 0; i < 500; i++ {
		next := fmt.Sprintf("c%d", i+1)
		chain = append(chain, upd(fmt.Sprintf("c%d", i), fmt.Sprintf(
			`{"Conditional":{"condition":{"path":"/workflow/x%d","operator":"exists"},"ifTrue":[%q],"ifFalse":[%q],"outputPath":"/workflow/x%d"}}`, i, next, next, i+1)))
	}
	chain = append(chain, upd("c500", filterOn("/workflow/nothing")), begin("c0"))

	// One operation reading 20000 paths that nothing writes.
	var refs []string
	for i := 0; i < 20000; i++ {
		refs = append(refs, fmt.Sprintf(`"{/workflow/p%05d}"`, i))
	}
	reads := []string{
		upd("api", `{"ApiCall":{"method":"POST","url":"https://api.example.com/","body":[`+strings.Join(refs, ",")+`],"outputPath":"/workflow/r"}}`),
		begin("api"),
	}

	// 300 references to undefined operations.
	var undef []string
	for i := 0; i < 300; i++ {
		undef = append(undef, fmt.Sprintf(`"missing-%d"`, i))
	}
	undefined := []string{upd("l", `{"Loop":{"inputPath":"/input/x","operations":[`+strings.Join(undef, ",")+`]}}`), begin("l")}

	cases := []struct {
		name        string
		lines       []string
		errs, warns int
		lastErr     string
		lastWarning string
	}{
		{"exponential branches", chain, 0, 2, "", "reads /workflow/nothing"},
		{"many missing reads", reads, 0, 201, "", "19800 more warnings are not reported"},
		{"many undefined ids", undefined, 201, 0, "100 more errors are not reported", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := validate.Document([]byte(doc(tc.lines...)), big)
			if len(r.Errors) != tc.errs || len(r.Warnings) != tc.warns {
				t.Fatalf("%d errors, %d warnings; want %d, %d\n%s%s", len(r.Errors), len(r.Warnings), tc.errs, tc.warns, dump(r.Errors), dump(r.Warnings))
			}
			if tc.lastErr != "" && !strings.Contains(r.Errors[len(r.Errors)-1].Message, tc.lastErr) {
				t.Errorf("last error %q", r.Errors[len(r.Errors)-1].Message)
			}
			if tc.lastWarning != "" && !strings.Contains(r.Warnings[len(r.Warnings)-1].Message, tc.lastWarning) {
				t.Errorf("last warning %q", r.Warnings[len(r.Warnings)-1].Message)
			}
		})
	}
}
