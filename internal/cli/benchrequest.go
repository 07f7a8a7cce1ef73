package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// executePoster sends `bench http`'s workflow requests with the little work
// a load generator can do: the body is a template with the execution id and
// the input spliced in, and of the answer only the envelope (status, id,
// errors) is decoded. Through the Go client each request cost the generator
// about 0.2 ms of CPU (a map encoded by reflection, the whole result decoded
// into maps), more than the direct baseline's and taken from the cores the
// server runs on, so the ratios measured the generator as much as sluice.
// The bytes sent are the client's: TestExecuteBodyAsClient.
type executePoster struct {
	hc       *http.Client
	url      string
	auth     string
	pre, mid string // the body up to the id, and from the id to the input
	end      string // after the input
	withData bool   // the body carries dataInput's items
	bufs     sync.Pool
}

// newExecutePoster builds the poster of workflow, in which idMarker stands
// where each request's execution id goes; data adds dataInput(n) as the
// input.
func newExecutePoster(hc *http.Client, base, key string, workflow string, idMarker string, data bool) (*executePoster, error) {
	esc, err := json.Marshal(workflow)
	if err != nil {
		return nil, err
	}
	pre, rest, ok := strings.Cut(string(esc), idMarker)
	if !ok {
		return nil, fmt.Errorf("bench: the workflow template has no id marker %q", idMarker)
	}
	p := &executePoster{hc: hc, url: strings.TrimRight(base, "/") + "/api/v1/workflows/execute",
		auth: "Bearer " + key, withData: data}
	p.pre = `{` + `"workflow":` + pre
	if data {
		p.mid = rest + `,"input":{"items":[`
		p.end = `]}}`
	} else {
		p.mid = rest
		p.end = `}`
	}
	p.bufs.New = func() any { return new(bytes.Buffer) }
	return p, nil
}

// appendBody appends the request body of execution id with dataInput(n).
func (p *executePoster) appendBody(b []byte, id string, n int) []byte {
	b = append(b, p.pre...)
	b = append(b, id...)
	b = append(b, p.mid...)
	if p.withData {
		b = appendDataItems(b, n)
	}
	return append(b, p.end...)
}

// appendDataItems appends dataInput(n)'s items as JSON, keys in the order
// encoding/json writes a map's.
func appendDataItems(b []byte, n int) []byte {
	for i := range 20 {
		if i > 0 {
			b = append(b, ',')
		}
		status := "active"
		if i%3 == 0 {
			status = "idle"
		}
		b = append(b, `{"name":"u`...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, `","points":`...)
		b = strconv.AppendInt(b, int64((n*7+i*13)%500), 10)
		b = append(b, `,"status":"`...)
		b = append(b, status...)
		b = append(b, `"}`...)
	}
	return b
}

// post sends one request and checks that the execution succeeded.
func (p *executePoster) post(ctx context.Context, id string, n int) error {
	buf := p.bufs.Get().(*bytes.Buffer)
	defer p.bufs.Put(buf)
	buf.Reset()
	buf.Write(p.appendBody(buf.AvailableBuffer(), id, n))
	req, err := http.NewRequestWithContext(ctx, "POST", p.url, bytes.NewReader(buf.Bytes()))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", p.auth)
	req.Header.Set("Content-Type", "application/json")
	resp, err := p.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	buf.Reset()
	if _, err := buf.ReadFrom(io.LimitReader(resp.Body, 64<<20)); err != nil {
		return err
	}
	var e struct {
		ID     string          `json:"execution_id"`
		Status string          `json:"status"`
		Errors json.RawMessage `json:"errors"`
	}
	if err := json.Unmarshal(buf.Bytes(), &e); err != nil {
		return fmt.Errorf("status %d: %v", resp.StatusCode, err)
	}
	if resp.StatusCode != http.StatusOK || e.Status != "success" {
		return fmt.Errorf("execution %s ended %q (HTTP %d): %s", e.ID, e.Status, resp.StatusCode, truncate(buf.String(), 300))
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
