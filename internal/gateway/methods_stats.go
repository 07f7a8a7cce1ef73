package gateway

import (
	"context"
	"math"
	"sort"

	dto "github.com/prometheus/client_model/go"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// The admin's view of the server's own counters (the web console's charts
// poll it) and of one account's rate limits.

// bucket is a cumulative histogram bucket: calls answered within LE
// seconds.
type bucket struct {
	LE    float64 `json:"le"` // +Inf is written as -1 (JSON has no infinity)
	Count uint64  `json:"count"`
}

// taskDepther is the agent caller that can count its queued tasks
// (internal/bridge's Client on a table queue).
type taskDepther interface {
	TaskDepth(ctx context.Context, max int) (int, bool, error)
}

// maxTaskDepth bounds the agent task count: a count past it reads "1000+".
const maxTaskDepth = 1000

// counters are the server's counters at one moment, summed over their
// labels.
type counters struct {
	sample     statsSample
	refused    float64
	executions map[string]float64 // ended, by status
	http       map[string]float64 // responses, by status
}

// readCounters gathers the counters from the server's registry.
func (s *Server) readCounters() (counters, error) {
	families, err := s.registry.Gather()
	if err != nil {
		return counters{}, err
	}
	c := counters{sample: statsSample{Time: s.clock.Now().UTC()}, executions: map[string]float64{}, http: map[string]float64{}}
	les := map[float64]uint64{}
	var calls uint64
	for _, f := range families {
		for _, m := range f.GetMetric() {
			switch f.GetName() {
			case "sluice_requests_total":
				v := m.GetCounter().GetValue()
				c.sample.Requests += v
				if label(m, "code") != "ok" {
					c.sample.Errors += v
				}
			case "sluice_rate_limit_refusals_total":
				c.refused += m.GetCounter().GetValue()
			case "sluice_executions_total":
				v := m.GetCounter().GetValue()
				c.executions[label(m, "status")] += v
				c.sample.Executions += v
			case "sluice_http_responses_total":
				c.http[label(m, "code")] += m.GetCounter().GetValue()
			case "sluice_request_duration_seconds":
				h := m.GetHistogram()
				calls += h.GetSampleCount()
				for _, b := range h.GetBucket() {
					les[b.GetUpperBound()] += b.GetCumulativeCount()
				}
			}
		}
	}
	buckets := make([]bucket, 0, len(les)+1)
	for le, n := range les {
		buckets = append(buckets, bucket{LE: le, Count: n})
	}
	sort.Slice(buckets, func(i, j int) bool { return buckets[i].LE < buckets[j].LE })
	c.sample.Latency = append(buckets, bucket{LE: -1, Count: calls})
	return c, nil
}

// adminStats answers the server's counters since it started, summed over
// their labels: calls dispatched and how many failed, calls refused by a
// rate limit, executions ended by status, HTTP responses by status, the
// latency histogram of every call (and its p50 and p99, estimated as the
// bucket bounds), and this process's workers. A reader that polls it gets
// rates and recent quantiles from the differences; history is the same
// counters every 10 s over the last hour (stats_history.go), oldest first.
func (s *Server) adminStats(ctx context.Context, _ *Call, _ args, w *e2a.StreamWriter) error {
	c, err := s.readCounters()
	if err != nil {
		return fault.New(fault.Internal, "the server's counters could not be read").WithCause(err)
	}
	s.history.offer(c.sample)
	out := map[string]any{"time": c.sample.Time}
	buckets := c.sample.Latency
	out["requests"], out["errors"], out["rate_limited"] = c.sample.Requests, c.sample.Errors, c.refused
	out["executions"], out["http_responses"] = c.executions, c.http
	out["latency_buckets"] = buckets
	out["latency_ms"] = map[string]any{"p50": quantileMs(buckets, 0.5), "p99": quantileMs(buckets, 0.99)}
	out["history"] = s.history.samples()
	workers := 0
	if s.svc.Executions != nil {
		workers = s.svc.Executions.Workers()
	}
	out["workers"] = workers
	// The agent task queue's depth, when its queue can count (agent_tasks;
	// absent otherwise): up to maxTaskDepth, like the runs the page counts.
	if s.svc.Agents != nil {
		if q, ok := s.svc.Agents.Caller.(taskDepther); ok {
			if n, ok, err := q.TaskDepth(ctx, maxTaskDepth); ok && err == nil {
				out["agent_tasks"] = map[string]any{"count": n, "max": maxTaskDepth}
			}
		}
	}
	return w.Complete(out)
}

// quantileMs is the upper bound, in milliseconds, of the bucket holding the
// q-quantile of buckets (-1 when it is past the last bound; 0 with no call).
func quantileMs(buckets []bucket, q float64) float64 {
	total := buckets[len(buckets)-1].Count
	if total == 0 {
		return 0
	}
	want := uint64(math.Ceil(q * float64(total)))
	for _, b := range buckets {
		if b.Count >= want {
			if b.LE < 0 {
				return -1
			}
			return b.LE * 1000
		}
	}
	return -1
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// adminRateLimits is one account's rate-limit windows as the account
// itself would read them (account.rate_limit).
func (s *Server) adminRateLimits(ctx context.Context, _ *Call, a args, w *e2a.StreamWriter) error {
	p, err := s.svc.Accounts.Principal(ctx, a.String("account"))
	if err != nil {
		return err
	}
	return w.Complete(s.svc.Limiter.Status(p))
}
