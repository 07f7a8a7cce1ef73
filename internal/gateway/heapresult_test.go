package gateway_test

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestHeavyHeapPerResultByte is issue 27's memory figure: the heap a
// synchronous execution with a large result takes, per byte of the result
// JSON the client reads. An ApiCall fetches a JSON array of small objects
// (about 4 MB) and a FilterData keeps all of them, so the result holds the
// array twice (by reference in memory, twice in JSON); synchronous and
// queued (polled until it ends) alternate, five of each. The peak is sampled
// from runtime/metrics every 100 µs while the request runs, over the heap
// after a GC before it; the test's client reads the body into nothing. The
// upstream is in this process too: its one copy of the body is in the
// figure. The ApiCall's result cache is off, so that every run fetches and
// decodes. Issue 27's goal, checked on the median of each mode's five
// runs: at most 10 bytes of heap per byte of result. Set
// SLUICE_TEST_HEAVY=1 to run it (CI does, without -race).
func TestHeavyHeapPerResultByte(t *testing.T) {
	if os.Getenv("SLUICE_TEST_HEAVY") == "" {
		t.Skip("set SLUICE_TEST_HEAVY=1 to measure")
	}
	s := newServer(t)
	var b strings.Builder
	b.WriteByte('[')
	for i := range 50_000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"user-%d","status":"active","email":"user-%d@example.com"}`, i, i, i)
	}
	b.WriteByte(']')
	up := upstreamJSON(t, b.String())
	_, key := s.account(map[string]any{"operations": []string{"*"}, "hosts": []string{"*"}, "credentials": []string{}},
		map[string]any{"requests_per_minute": -1, "requests_per_hour": -1, "requests_per_day": -1}) // the polling

	do := func(method, path, body string) (int, int64, string) {
		t.Helper()
		req, _ := http.NewRequest(method, s.http.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		// The head of the body is kept for the status and id; the rest is
		// read into nothing.
		head := make([]byte, 256)
		h, _ := io.ReadFull(resp.Body, head)
		n, err := io.Copy(io.Discard, resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, int64(h) + n, string(head[:h])
	}
	// run is one execution, synchronous or queued (then polled until it
	// ends, the last GET's body being the result read).
	run := func(async bool) int64 {
		doc := strings.Replace(fetchDoc(up.URL+"/users", ""), `"method":"GET",`, `"method":"GET","cache":false,`, 1)
		body := `{"workflow":` + jsonString(doc) + `}`
		if !async {
			code, n, head := do("POST", "/api/v1/workflows/execute", body)
			if code != 200 || n < int64(b.Len()) {
				t.Fatalf("status %d, %d bytes: %s", code, n, head)
			}
			return n
		}
		code, _, head := do("POST", "/api/v1/workflows/execute?async=true", body)
		id := regexp.MustCompile(`"execution_id":"([^"]+)"`).FindStringSubmatch(head)
		if code != 202 || id == nil {
			t.Fatalf("status %d: %s", code, head)
		}
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			code, n, head := do("GET", "/api/v1/executions/"+id[1], "")
			if code != 200 {
				t.Fatalf("status %d: %s", code, head)
			}
			if n > int64(b.Len()) {
				return n
			}
		}
		t.Fatal("the queued execution did not end in a minute")
		return 0
	}

	perByte := map[bool][]float64{}
	for i := range 10 {
		async := i%2 == 1

		samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/allocs:bytes"}}
		runtime.GC()
		metrics.Read(samples)
		base, allocs0 := samples[0].Value.Uint64(), samples[1].Value.Uint64()
		var peak atomic.Uint64
		stop := make(chan struct{})
		sampled := make(chan struct{})
		go func() {
			defer close(sampled)
			s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
			for {
				metrics.Read(s)
				if v := s[0].Value.Uint64(); v > peak.Load() {
					peak.Store(v)
				}
				select {
				case <-stop:
					return
				case <-time.After(100 * time.Microsecond):
				}
			}
		}()
		n := run(async)
		close(stop)
		<-sampled
		metrics.Read(samples)
		grew := float64(peak.Load()) - float64(base)
		t.Logf("async=%v: result %.1f MB (upstream body %.1f MB); heap peak +%.1f MB = %.1f bytes per result byte; allocated %.1f bytes per result byte",
			async, float64(n)/1e6, float64(b.Len())/1e6, grew/1e6, grew/float64(n), float64(samples[1].Value.Uint64()-allocs0)/float64(n))
		perByte[async] = append(perByte[async], grew/float64(n))
	}
	for async, runs := range perByte {
		slices.Sort(runs)
		if median := runs[len(runs)/2]; median > 10 {
			t.Errorf("async=%v: heap peak of %.1f bytes per result byte (median of %v), over issue 27's 10", async, median, runs)
		}
	}
}
