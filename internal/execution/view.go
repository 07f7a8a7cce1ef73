package execution

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

// View is an execution as the REST API shows it: the spec's execute response
// (execution_id, status, results, errors, duration_ms) and its times.
// Results are the stored bytes, passed through: decoding tens of megabytes
// of results into maps only to encode them again was most of what reading
// a large execution cost (docs/performance.md, memory per byte of result),
// and the bytes are those the execute response had.
type View struct {
	ExecutionID       string          `json:"execution_id"`
	Status            store.Status    `json:"status"`
	Results           json.RawMessage `json:"results"`
	Errors            []fault.Object  `json:"errors"`
	DurationMs        int64           `json:"duration_ms"`
	Async             bool            `json:"async"`
	ClientExecutionID string          `json:"client_execution_id,omitempty"`
	CreatedAt         time.Time       `json:"created_at"`
	StartedAt         *time.Time      `json:"started_at,omitempty"`
	CompletedAt       *time.Time      `json:"completed_at,omitempty"`
	Waiting           json.RawMessage `json:"waiting,omitempty"`
}

// Summary is an execution in a list.
type Summary struct {
	ExecutionID       string       `json:"execution_id"`
	Status            store.Status `json:"status"`
	Async             bool         `json:"async"`
	ClientExecutionID string       `json:"client_execution_id,omitempty"`
	CreatedAt         time.Time    `json:"created_at"`
	StartedAt         *time.Time   `json:"started_at,omitempty"`
	CompletedAt       *time.Time   `json:"completed_at,omitempty"`
}

// storedResult is the part of the engine's result JSON a view reads back.
type storedResult struct {
	Results    borrowedJSON    `json:"results"`
	Errors     []fault.Object  `json:"errors"`
	DurationMs int64           `json:"duration_ms"`
	Waiting    json.RawMessage `json:"waiting"`
}

// viewOf renders a stored execution.
func viewOf(e store.Execution) View {
	v := View{
		ExecutionID: e.ID, Status: e.Status, Async: e.Async, ClientExecutionID: e.ClientID,
		CreatedAt: e.CreatedAt, StartedAt: e.StartedAt, CompletedAt: e.FinishedAt,
		Results: emptyResults, Errors: []fault.Object{},
	}
	if len(e.Result) > 0 {
		var r storedResult
		if json.Unmarshal(e.Result, &r) == nil {
			if len(r.Results) > 0 && string(r.Results) != "null" {
				v.Results = json.RawMessage(r.Results)
			}
			if r.Errors != nil {
				v.Errors = r.Errors
			}
			v.DurationMs, v.Waiting = r.DurationMs, r.Waiting
		}
	}
	return v
}

var emptyResults = json.RawMessage(`{}`)

// borrowedJSON is a json.RawMessage that keeps the bytes it is decoded from
// instead of copying them (json.Unmarshal hands UnmarshalJSON a part of its
// input): a view's results are part of the stored result, which nothing
// changes, and can be tens of megabytes.
type borrowedJSON []byte

func (b *borrowedJSON) UnmarshalJSON(data []byte) error {
	*b = data
	return nil
}

// JSON is v as json.Marshal writes it, in three pieces whose middle one is
// the results as stored: written one after the other (io.WriterTo) they
// cost no copy of the results, which json.Marshal would check and copy into
// a buffer it grows a quarter at a time.
func (v View) JSON() (ViewJSON, error) {
	results := v.Results
	v.Results = nil
	head, err := json.Marshal(withoutResults{View: v})
	if err != nil {
		return ViewJSON{}, err
	}
	// The fields before results are an id and a status, which cannot hold
	// this text: it is where results goes back in.
	at := bytes.Index(head, []byte(`,"errors":`))
	if at < 0 {
		return ViewJSON{}, fmt.Errorf("execution view: no errors field in %s", head)
	}
	return ViewJSON{head[:at], results, head[at:]}, nil
}

// ViewJSON is a view's JSON in pieces: Head ends where the results go
// (`…,"status":"success"`), Tail starts after them (`,"errors":…}`).
type ViewJSON struct{ Head, Results, Tail []byte }

// WriteTo writes the pieces in turn.
func (j ViewJSON) WriteTo(w io.Writer) (int64, error) {
	var n int64
	for _, b := range [][]byte{j.Head, []byte(`,"results":`), j.Results, j.Tail} {
		m, err := w.Write(b)
		n += int64(m)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// MarshalJSON joins the pieces, for the transports that need one value.
func (j ViewJSON) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.Grow(len(j.Head) + len(j.Results) + len(j.Tail) + len(`,"results":`))
	_, _ = j.WriteTo(&b)
	return b.Bytes(), nil
}

// withoutResults is a view with its results hidden (the shallower field
// hides the embedded one of the same JSON name).
type withoutResults struct {
	View
	Results *struct{} `json:"results,omitempty"`
}

func summaryOf(e store.Execution) Summary {
	return Summary{ExecutionID: e.ID, Status: e.Status, Async: e.Async, ClientExecutionID: e.ClientID,
		CreatedAt: e.CreatedAt, StartedAt: e.StartedAt, CompletedAt: e.FinishedAt}
}
