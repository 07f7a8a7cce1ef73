package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/sluicehq/sluice/internal/store/postgres/pgtest"
	"github.com/sluicehq/sluice/internal/telemetry/telemetrytest"
)

// One trace across processes: `sluice serve` and `sluice worker` on
// PostgreSQL, both exporting OTLP/HTTP to a receiver in the test (set up by
// the standard OTEL_* variables only), and an agent that continues the
// traceparent it receives and exports its own span there too. A workflow
// with an ApiCall (a vault credential) and an agent step, sent with a
// traceparent: the trace holds the gateway's request span, the worker's
// invoke_agent span and the agent's own span, each under the one before;
// and no exported span holds the API key, the admin key or the vault value.
func TestOneTraceAcrossGatewayWorkerAndAgent(t *testing.T) {
	oneTrace(t, pgtest.NewDatabase(t), "http/protobuf")
}

// The same with `sluice serve` alone on its SQLite defaults (its own agent
// workers take the task from its local queue), over either OTLP protocol.
func TestOneTraceFromSluiceServe(t *testing.T) {
	for _, proto := range []string{"http/protobuf", "grpc"} {
		t.Run(proto, func(t *testing.T) { oneTrace(t, "", proto) })
	}
}

// oneTrace runs the scenario on PostgreSQL with a worker process (dsn set)
// or on SQLite with serve alone, exporting over proto.
func oneTrace(t *testing.T, dsn, proto string) {
	rcv := telemetrytest.NewReceiver(t)
	var exp sdktrace.SpanExporter
	var err error
	if proto == "grpc" {
		rcv = telemetrytest.NewGRPCReceiver(t)
		exp, err = otlptracegrpc.New(context.Background(), otlptracegrpc.WithEndpointURL(rcv.URL))
	} else {
		exp, err = otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL(rcv.URL+"/v1/traces"))
	}
	const secret = "tok-e2e-7c6b5a4f3e2d1c0b"

	// The agent: its own SDK, its own service, the same receiver.
	if err != nil {
		t.Fatal(err)
	}
	agentTP := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp),
		sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", "test-agent"))))
	defer agentTP.Shutdown(context.Background())
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := propagation.TraceContext{}.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		_, span := agentTP.Tracer("test-agent").Start(ctx, "agent handles task", trace.WithSpanKind(trace.SpanKindServer))
		defer span.End()
		var task struct {
			TaskID string `json:"task_id"`
		}
		_ = json.NewDecoder(r.Body).Decode(&task)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"task_id": task.TaskID, "status": "success", "output": map[string]any{"ok": true}})
	}))
	defer agent.Close()
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `[{"name":"ann"}]`)
	}))
	defer api.Close()

	dir := t.TempDir()
	env := []string{"OTEL_TRACES_EXPORTER=otlp", "OTEL_EXPORTER_OTLP_ENDPOINT=" + rcv.URL,
		"OTEL_EXPORTER_OTLP_PROTOCOL=" + proto, "OTEL_BSP_SCHEDULE_DELAY=100", "OTEL_TRACES_SAMPLER=parentbased_always_on",
		"SLUICE_EGRESS_ALLOW_PRIVATE=127.0.0.1", "SLUICE_LOG_LEVEL=info", "SLUICE_ADMIN_KEY="}
	serveArgs := []string{"serve", "--data", dir, "--addr", "127.0.0.1:0"}
	workerRole := "gateway"
	if dsn != "" {
		serveArgs = append(serveArgs, "--store", dsn, "--agent-workers", "0")
		workerRole = "worker"
	}
	gw, gwErr := startSluice(t, env, serveArgs...)
	var url, admin string
	waitUntil(t, 60*time.Second, "the gateway to serve", func() bool {
		out := gwErr.String()
		if m := regexp.MustCompile(`addr=(127\.0\.0\.1:\d+)`).FindStringSubmatch(out); m != nil {
			url = "http://" + m[1]
		}
		if m := regexp.MustCompile(`admin key: (\S+)`).FindStringSubmatch(out); m != nil {
			admin = m[1]
		}
		return url != "" && admin != ""
	})
	procs := []*exec.Cmd{gw}
	if dsn != "" {
		worker, _ := startSluice(t, env, "worker", "--store", dsn, "--data", dir)
		procs = append(procs, worker)
	}

	post := func(path, key string, body any, header map[string]string) map[string]any {
		t.Helper()
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest("POST", url+path, bytes.NewReader(b))
		if path == "/api/v1/admin/credentials/api" {
			req.Method = "PUT"
		}
		req.Header.Set("Authorization", "Bearer "+key)
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		raw, _ := io.ReadAll(resp.Body)
		_ = json.Unmarshal(raw, &out)
		if resp.StatusCode >= 300 {
			t.Fatalf("%s: %d %s", path, resp.StatusCode, raw)
		}
		return out
	}
	post("/api/v1/admin/credentials/api", admin, map[string]any{"type": "bearer-token", "value": secret, "hosts": []string{strings.TrimPrefix(api.URL, "http://")}}, nil)
	post("/api/v1/admin/agents", admin, map[string]any{"name": "echo", "url": agent.URL}, nil)
	acct := post("/api/v1/admin/accounts", admin, map[string]any{"name": "traced", "permissions": map[string]any{
		"operations": []string{"ApiCall", "InvokeAgent"}, "hosts": []string{"*"}, "credentials": []string{"api"}, "agents": []string{"echo"}}}, nil)
	key, _ := acct["api_key"].(string)
	doc := strings.Join([]string{
		`{"type":"operationUpdate","operationId":"fetch","operation":{"ApiCall":{"method":"GET","url":"` + api.URL + `/users","headers":{"Authorization":{"credentialRef":{"id":"api"}}},"outputPath":"/workflow/users"}}}`,
		`{"type":"operationUpdate","operationId":"ask","operation":{"InvokeAgent":{"agent":"echo","input":{"n":1},"outputPath":"/workflow/answer"}}}`,
		`{"type":"beginExecution","executionId":"traced-1","operationOrder":["fetch","ask"]}`}, "\n")
	res := post("/api/v1/workflows/execute", key, map[string]any{"workflow": doc}, map[string]string{"traceparent": telemetrytest.Traceparent})
	if res["status"] != "success" {
		t.Fatalf("execute: %v", res)
	}

	tr := rcv.Await(t, telemetrytest.TraceID, 30*time.Second, func(spans []telemetrytest.Received) bool {
		var gateway, invoke, own bool
		for _, s := range spans {
			gateway = gateway || s.Name == "POST /api/v1/workflows/execute" && s.Role == "gateway"
			invoke = invoke || s.Name == "invoke_agent echo" && s.Role == workerRole
			own = own || s.Service == "test-agent"
		}
		return gateway && invoke && own
	})
	byID := map[string]telemetrytest.Received{}
	for _, s := range tr {
		byID[s.SpanID] = s
	}
	// under is whether the span named name of role is an ancestor of s.
	under := func(s telemetrytest.Received, name, role string) bool {
		for p, ok := byID[s.ParentID]; ok; p, ok = byID[p.ParentID] {
			if p.Name == name && p.Role == role {
				return true
			}
		}
		return false
	}
	for _, s := range tr {
		switch {
		case s.Service == "test-agent":
			if !under(s, "invoke_agent echo", workerRole) || !under(s, "POST /api/v1/workflows/execute", "gateway") {
				t.Errorf("the agent's span is not under the worker's invoke_agent and the gateway's request")
			}
		case s.Name == "invoke_agent echo":
			if s.Attributes["gen_ai.agent.name"] != "echo" || s.Attributes["gen_ai.operation.name"] != "invoke_agent" ||
				!under(s, "process agent.tasks", workerRole) || !under(s, "send agent.tasks", "gateway") {
				t.Errorf("invoke_agent span %+v", s)
			}
		case s.Name == "POST /api/v1/workflows/execute":
			if s.Kind != "server" || s.ParentID != "00f067aa0ba902b7" || s.Attributes["http.route"] != "/api/v1/workflows/execute" ||
				s.Service != "sluice" {
				t.Errorf("the request span %+v", s)
			}
		}
	}
	// Both processes stop on SIGTERM, flushing what is left.
	for _, c := range procs {
		_ = c.Process.Signal(syscall.SIGTERM)
		if err := c.Wait(); err != nil {
			t.Errorf("%s: %v", c.Args, err)
		}
	}
	rcv.AssertNoSecret(t, secret, key, admin)
}

// startSluice runs the test binary as `sluice args...` (TestMain) with env
// added to this process's (OTEL_* of the test's own environment cleared),
// and returns it with its stderr.
func startSluice(t *testing.T, env []string, args ...string) (*exec.Cmd, stderrFile) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OTEL_") && !strings.HasPrefix(kv, "SLUICE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	cmd.Env = append(cmd.Env, "SLUICE_TEST_MAIN_ARGS="+strings.Join(args, "\x1f"))
	f, err := os.CreateTemp(t.TempDir(), args[0]+"-stderr-*")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	stderr := stderrFile(f.Name())
	cmd.Stderr = f // the process writes, the test reads the file
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
		if t.Failed() {
			t.Logf("%s stderr:\n%s", args[0], stderr.String())
		}
	})
	return cmd, stderr
}

// stderrFile is a child process's stderr, as a file it writes.
type stderrFile string

func (f stderrFile) String() string {
	b, _ := os.ReadFile(string(f))
	return string(b)
}

func waitUntil(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
