package op_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/datamodel"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
)

// TestApiCallMaxResponseBytes: an operation's maxResponseBytes lowers the
// server's response limit, the error names the limit, and it can never be
// raised above the server's.
func TestApiCallMaxResponseBytes(t *testing.T) {
	e := newEnv(t)
	up := newUpstream(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, strings.Repeat("x", 500))
	})
	cfg := func(extra string) string {
		return fmt.Sprintf(`{"method":"GET","url":%q,"outputPath":"/workflow/r","cache":false%s}`, up.URL, extra)
	}
	if got, err := e.run(t, cfg(""), nil); err != nil || got != strings.Repeat("x", 500) {
		t.Fatalf("under the server's limit: %v %v", got, err)
	}
	_, err := e.run(t, cfg(`,"maxResponseBytes":499`), nil)
	fe := asFault(t, err)
	if fe.SpecType() != fault.ExecutionError || fe.Details["limitBytes"] != int64(499) ||
		!strings.Contains(fe.Message, "maxResponseBytes") || !strings.Contains(fe.Message, "499") {
		t.Errorf("over the operation's limit: %s %v %q", fe.SpecType(), fe.Details, fe.Message)
	}
	if got, err := e.run(t, cfg(`,"maxResponseBytes":500`), nil); err != nil || got != strings.Repeat("x", 500) {
		t.Errorf("at the operation's limit: %v %v", got, err)
	}

	e.deps.Limits.MaxResponseBytes = 400
	_, err = e.run(t, cfg(""), nil)
	if fe := asFault(t, err); !strings.Contains(fe.Message, "limits.max_response_bytes") || fe.Details["limitBytes"] != int64(400) {
		t.Errorf("over the server's limit: %v %q", fe.Details, fe.Message)
	}
	// Above the server's limit is a configuration error, not a silent cap.
	fe = dtConfigError(t, op.ApiCallOp, e.deps, cfg(`,"maxResponseBytes":401`), "operation.ApiCall.maxResponseBytes")
	if !strings.Contains(fe.Message, "400") {
		t.Errorf("config error %q does not name the server's limit", fe.Message)
	}
	dtConfigError(t, op.ApiCallOp, e.deps, cfg(`,"maxResponseBytes":-1`), "operation.ApiCall.maxResponseBytes")
}

// TestApiCallChargesBudgetBeforeReading: a response whose Content-Length
// cannot fit the data budget is refused before it is read; one that fits is
// charged its decoded size.
func TestApiCallChargesBudgetBeforeReading(t *testing.T) {
	e := newEnv(t)
	body := `[` + strings.Repeat(`{"a":1},`, 999) + `{"a":1}]`
	up := newUpstream(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		io.WriteString(w, body)
	})
	o := e.build(t, fmt.Sprintf(`{"method":"GET","url":%q,"outputPath":"/workflow/r","cache":false}`, up.URL))

	rc := e.rc("acct-a", nil)
	rc.Budget = datamodel.NewBudget(int64(len(body)) - 1)
	_, err := o.Run(context.Background(), rc)
	fe := asFault(t, err)
	if fe.SpecType() != fault.DataError || fe.Details["dataBudgetBytes"] != int64(len(body))-1 || fe.OperationID != "call" {
		t.Fatalf("got %s %v %q, want the budget's DataError", fe.SpecType(), fe.Details, fe.Message)
	}
	if rc.Budget.Used() != int64(len(body)) {
		t.Errorf("charged %d, want the Content-Length %d", rc.Budget.Used(), len(body))
	}

	rc = e.rc("acct-a", nil)
	rc.Budget = datamodel.NewBudget(0)
	v, err := o.Run(context.Background(), rc)
	if err != nil {
		t.Fatal(err)
	}
	if want := datamodel.Size(v); rc.Budget.Used() != want || want <= int64(len(body)) {
		t.Errorf("charged %d, want the decoded size %d (JSON %d)", rc.Budget.Used(), want, len(body))
	}
}
