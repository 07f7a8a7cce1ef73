// Package debugserver is the handler of `serve --debug-addr`: net/http/pprof
// profiles and the process's runtime metrics (expvar's /debug/vars, with
// runtime/metrics samples under "runtime"), for finding what a running
// server spends its time and memory on. It carries no authentication: it is
// only ever served on a loopback address of its own (CheckAddr), never on
// the public one.
package debugserver

import (
	"expvar"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"runtime/metrics"
	"strconv"
	"sync"
)

// Handler serves /debug/pprof/... and /debug/vars.
func Handler() http.Handler {
	publishRuntime()
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.Handle("/debug/vars", expvar.Handler())
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintln(w, "sluice debug: /debug/pprof/ (profiles), /debug/vars (runtime metrics)")
	})
	return mux
}

var publishOnce sync.Once

// publishRuntime adds "runtime" to expvar: every scalar of runtime/metrics
// (heap, GC, goroutines, scheduler latencies' counts) read at each request.
// expvar's names are process-wide, so it is published once.
func publishRuntime() {
	publishOnce.Do(func() {
		expvar.Publish("runtime", expvar.Func(runtimeMetrics))
	})
}

func runtimeMetrics() any {
	descs := metrics.All()
	samples := make([]metrics.Sample, 0, len(descs))
	for _, d := range descs {
		if d.Kind == metrics.KindUint64 || d.Kind == metrics.KindFloat64 {
			samples = append(samples, metrics.Sample{Name: d.Name})
		}
	}
	metrics.Read(samples)
	out := make(map[string]any, len(samples))
	for _, s := range samples {
		switch s.Value.Kind() {
		case metrics.KindUint64:
			out[s.Name] = s.Value.Uint64()
		case metrics.KindFloat64:
			out[s.Name] = s.Value.Float64()
		}
	}
	return out
}

// CheckAddr refuses a debug address that is not host:port on a loopback
// address (profiles show memory, which may hold secrets in flight), or that
// would share the public address main.
func CheckAddr(debug, main string) error {
	host, port, err := net.SplitHostPort(debug)
	if err != nil {
		return fmt.Errorf("want a loopback host:port such as 127.0.0.1:6060, got %q", debug)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("port %q is not a number from 0 to 65535", port)
	}
	if !loopback(host) {
		return fmt.Errorf("%q is not a loopback address: profiles and metrics are served without authentication, so only on 127.0.0.1, ::1 or localhost (reach them from elsewhere through an SSH tunnel)", host)
	}
	mhost, mport, err := net.SplitHostPort(main)
	if err == nil && port != "0" && port == mport && (mhost == host || mhost == "" || unspecified(mhost)) {
		return fmt.Errorf("%s is the public address (addr %s): the debug endpoints are never served there", debug, main)
	}
	return nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func unspecified(host string) bool {
	ip := net.ParseIP(host)
	return ip != nil && ip.IsUnspecified()
}
