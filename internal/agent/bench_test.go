package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/agent"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

// benchEnv is an invoker in front of a loopback mock agent (no delay), and
// a plain net/http client for the same agent.
func benchEnv(b *testing.B) (*agent.Invoker, string, *http.Client) {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	cctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- agent.ServeMock(cctx, ln, agent.MockOptions{Name: "bench"}) }()
	b.Cleanup(func() { cancel(); <-done })
	url := "http://" + ln.Addr().String()
	quiet := func(r *agent.RegistryOptions, i *agent.InvokerOptions) {
		r.Logger, i.Logger, r.Clock, i.Clock = nil, nil, nil, nil
	}
	e := newEnv(b, quiet)
	if _, _, err := e.reg.Register(context.Background(), agenthttp.NewEntry("bench", url)); err != nil {
		b.Fatal(err)
	}
	return e.inv, url, &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 32}}
}

// direct is the same call made by hand: POST, read, decode.
func direct(c *http.Client, url string, body []byte) error {
	resp, err := c.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	var r struct {
		Output json.RawMessage `json:"output"`
	}
	return json.Unmarshal(raw, &r)
}

var benchInput = json.RawMessage(`{"topic":"Climate Change Impact on Agriculture","depth":"comprehensive","sources":["scientific journals","government reports"]}`)

// BenchmarkInvoke is one invocation through the registry and invoker.
func BenchmarkInvoke(b *testing.B) {
	inv, _, _ := benchEnv(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := inv.Invoke(ctx, "bench", "task-1", benchInput, "corr-1"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDirect is the same request made with net/http alone.
func BenchmarkDirect(b *testing.B) {
	_, url, c := benchEnv(b)
	body, _ := agenthttp.EncodeRequest(agenthttp.Request{TaskID: "task-1", Input: benchInput})
	b.ReportAllocs()
	for b.Loop() {
		if err := direct(c, url, body); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOverhead interleaves the two, so both meet the same machine
// load, and reports the medians, the 99th percentiles, what the invoker
// adds and the ratio of the medians.
func BenchmarkOverhead(b *testing.B) {
	inv, url, c := benchEnv(b)
	ctx := context.Background()
	body, _ := agenthttp.EncodeRequest(agenthttp.Request{TaskID: "task-1", Input: benchInput})
	var viaInvoker, viaHTTP []time.Duration
	for b.Loop() {
		t0 := time.Now()
		if err := direct(c, url, body); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := inv.Invoke(ctx, "bench", "task-1", benchInput, "corr-1"); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		viaHTTP = append(viaHTTP, t1.Sub(t0))
		viaInvoker = append(viaInvoker, t2.Sub(t1))
	}
	q := func(ds []time.Duration, p float64) float64 {
		s := slices.Clone(ds)
		slices.Sort(s)
		return float64(s[min(len(s)-1, int(p*float64(len(s))))].Nanoseconds()) / 1e3
	}
	b.ReportMetric(q(viaHTTP, 0.5), "direct-p50-µs")
	b.ReportMetric(q(viaHTTP, 0.99), "direct-p99-µs")
	b.ReportMetric(q(viaInvoker, 0.5), "invoke-p50-µs")
	b.ReportMetric(q(viaInvoker, 0.99), "invoke-p99-µs")
	b.ReportMetric(q(viaInvoker, 0.99)-q(viaHTTP, 0.99), "added-p99-µs")
	b.ReportMetric(q(viaInvoker, 0.5)/q(viaHTTP, 0.5), "ratio-p50")
	b.ReportMetric(0, "ns/op") // the pair's time says nothing alone
}
