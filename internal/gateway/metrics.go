package gateway

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/trace"

	"github.com/sluicehq/sluice/internal/telemetry"
)

// metrics are the server's Prometheus series. Labels carry method and
// operation names and codes only: never account ids (unbounded, and a scrape
// is not authenticated) and never anything a caller wrote.
type metrics struct {
	requests   *prometheus.CounterVec
	latency    *prometheus.HistogramVec
	refused    *prometheus.CounterVec
	httpStatus *prometheus.CounterVec
	operations *prometheus.HistogramVec
	executions *prometheus.CounterVec
	sessions   *prometheus.CounterVec
}

func newMetrics(reg *prometheus.Registry) *metrics {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sluice_requests_total", Help: "Calls dispatched, by transport, gateway method, outcome code and policy decision.",
		}, []string{"transport", "method", "code", "decision"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "sluice_request_duration_seconds", Help: "Time to answer a call, by transport and gateway method.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"transport", "method"}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sluice_rate_limit_refusals_total", Help: "Calls refused by an account's request rate limit, by gateway method.",
		}, []string{"method"}),
		httpStatus: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sluice_http_responses_total", Help: "HTTP responses by status code.",
		}, []string{"code"}),
		operations: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "sluice_operation_duration_seconds", Help: "Workflow operations that finished or failed, by operation and outcome.",
			Buckets: []float64{.0001, .0005, .001, .005, .01, .05, .1, .5, 1, 5, 30, 120, 600},
		}, []string{"operation", "outcome"}),
		executions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sluice_executions_total", Help: "Executions that ended, by final status.",
		}, []string{"status"}),
		sessions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sluice_session_refusals_total", Help: "Session connections refused before their handshake, by transport and the bound that was full.",
		}, []string{"transport", "reason"}),
	}
	reg.MustRegister(m.requests, m.latency, m.refused, m.httpStatus, m.operations, m.executions, m.sessions,
		prometheus.NewGoCollector(), prometheus.NewProcessCollector(prometheus.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) request(ctx context.Context, transport, method, code, decision string, d time.Duration) {
	if code == "" {
		code = "ok"
	}
	m.requests.WithLabelValues(transport, method, code, decision).Inc()
	// A sampled call's trace is the bucket's exemplar.
	telemetry.Observe(ctx, m.latency.WithLabelValues(transport, method), d.Seconds())
}

func (m *metrics) limited(method string) { m.refused.WithLabelValues(method).Inc() }

// sessionRefused counts a session connection refused a pre-handshake slot.
func (m *metrics) sessionRefused(transport, reason string) {
	m.sessions.WithLabelValues(transport, reason).Inc()
}

// Operation records a finished (outcome "ok") or failed operation; the
// run's sampled trace, when there is one, is the bucket's exemplar.
func (s *Server) Operation(sc trace.SpanContext, name, outcome string, d time.Duration) {
	telemetry.ObserveIn(sc, s.metrics.operations.WithLabelValues(name, outcome), d.Seconds())
}

// Execution records an execution that ended with status.
func (s *Server) Execution(status string) { s.metrics.executions.WithLabelValues(status).Inc() }

// wrap counts HTTP responses by status, and gives each request its server
// span (telemetry: under the request's traceparent; nothing when tracing
// is off).
func (m *metrics) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r, span := telemetry.StartServer(r)
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(sw, r)
		telemetry.EndServer(span, r, sw.status)
		m.httpStatus.WithLabelValues(strconv.Itoa(sw.status)).Inc()
	})
}

// statusWriter remembers the status; it passes Flush on for SSE.
type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection (deadlines).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func metricsHandler(reg *prometheus.Registry) http.Handler {
	// OpenMetrics carries the exemplars of the latency histograms.
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{EnableOpenMetrics: true})
}
