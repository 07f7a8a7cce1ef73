package config_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/fault"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func noEnv(string) (string, bool) { return "", false }

func env(kv map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := kv[k]; return v, ok }
}

func TestDefaults(t *testing.T) {
	c := config.Defaults()
	want := config.Config{
		Addr:    "127.0.0.1:8080",
		DataDir: "./sluice-data",
		Log:     config.Log{Level: "info", Format: "text"},
		Server: config.Server{ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute,
			WriteTimeout: 90 * time.Second, IdleTimeout: 2 * time.Minute, ShutdownGrace: 30 * time.Second},
		MaxBodyBytes: 2 << 20,
		Egress:       config.Egress{AllowPrivate: []string{}},
		Limits: config.Limits{MaxOperations: 20, MaxExecutionTime: 30 * time.Second, MaxLoopIterations: 1000,
			MaxDocumentBytes: 1 << 20, MaxResponseBytes: 16 << 20, MaxDataBytes: 64 << 20, AsyncExecutionTime: time.Hour},
		RateLimits: config.RateLimits{RequestsPerMinute: 60, RequestsPerHour: 1000, RequestsPerDay: 10000,
			APICallsPerMinute: 30, APICallsPerHour: 500, MaxConcurrentExecutions: 10, FlushInterval: 10 * time.Second},
		Workers: 16,
		Session: config.Session{TTL: time.Hour, MaxLineBytes: 1 << 20, MaxParallel: 16, CallsPerSecond: 100,
			HandshakeTimeout: 10 * time.Second, ShutdownTimeout: 10 * time.Second,
			MaxUnauthenticated: 256, MaxUnauthenticatedPerAddress: 32},
		MCP: config.MCP{Commands: map[string]config.MCPCommand{}, ConnectTimeout: 10 * time.Second, CallTimeout: 30 * time.Second,
			IdleTimeout: 5 * time.Minute, MaxResultBytes: 1 << 20,
			Serve: config.MCPServe{MaxSessions: 1000, MaxSessionsPerAccount: 32, IdleTimeout: 10 * time.Minute, PageSize: 100, ListChangedInterval: 30 * time.Second,
				AllowedHosts: []string{}, AllowedOrigins: []string{}}},
		A2S: config.A2S{Audit: map[string][]string{"basic": {"audited", "unaudited", "in-progress"},
			"elevated": {"audited"}, "admin": {"audited"}}},
		Store: config.Store{DSN: "sqlite", MaxExecutionBytes: 64 << 20},
		Retention: config.Retention{Runs: 30 * 24 * time.Hour, Audit: 30 * 24 * time.Hour, Interval: 5 * time.Minute,
			Batch: 100, Pause: 20 * time.Millisecond, Reclaim: 64 << 20},
		Discovery: config.Discovery{Embeddings: config.Embeddings{VectorWeight: 1, Timeout: 30 * time.Second, Batch: 64}, WordNet: true, WordVectors: true, Learning: config.Learning{Enabled: true, Retention: 4320 * time.Hour},
			Abbreviations: map[string]string{}, Synonyms: []string{}},
		Agents: config.Agents{Workers: 16, MaxWait: 10 * time.Minute, ACP: config.ACP{Commands: map[string]config.ACPCommand{},
			MaxProcesses: 8, IdleTimeout: 5 * time.Minute, StartTimeout: 10 * time.Second, MaxStderrBytes: 64 << 10, PendingTimeout: 10 * time.Minute}},
		Console: config.Console{Enabled: true, SessionTTL: 8 * time.Hour},
		Telemetry: config.Telemetry{Exporter: "none", Protocol: "http/protobuf", ServiceName: "sluice",
			Sampler: "parentbased_always_on", SlowStoreWrite: 50 * time.Millisecond},
	}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("defaults\n got %+v\nwant %+v", c, want)
	}
	if c.Log.SlogLevel() != slog.LevelInfo {
		t.Fatal("SlogLevel")
	}
	// Zero config: no file, no environment.
	loaded, err := config.Load(config.Options{LookupEnv: noEnv})
	if err != nil || !reflect.DeepEqual(*loaded, want) {
		t.Fatalf("Load without a file: %+v %v", loaded, err)
	}
	// The defaults file parses to the defaults.
	parsed, err := config.Parse("defaults.yaml", config.DefaultsYAML())
	if err != nil || !reflect.DeepEqual(*parsed, want) {
		t.Fatalf("DefaultsYAML: %v", err)
	}
	// Defaults hands out copies.
	c.Egress.AllowPrivate = append(c.Egress.AllowPrivate, "10.0.0.1")
	if len(config.Defaults().Egress.AllowPrivate) != 0 {
		t.Fatal("Defaults must not share its slices")
	}
}

func TestParseFullFile(t *testing.T) {
	src := `
addr: ":9090"
data_dir: /var/lib/sluice
log: {level: debug, format: json}
server:
  read_header_timeout: 5s
  read_timeout: 30s
  write_timeout: 2m
  idle_timeout: 1m
  shutdown_grace: 0s
max_body_bytes: 3MiB
egress:
  allow_private:
    - 10.0.0.0/8
    - "[::1]:8080"
    - db.internal
limits:
  max_operations: 50
  max_execution_time: 60000   # milliseconds, as the A2E spec writes it
  max_loop_iterations: 5000
  max_document_bytes: 2MB
  max_response_bytes: 1048576
  async_execution_time: |-
    2h
rate_limits:
  requests_per_minute: -1
  requests_per_hour: 5000
  requests_per_day: 50000
  api_calls_per_minute: 100
  api_calls_per_hour: 2000
  max_concurrent_executions: 4
  flush_interval: 30s
workers: 2
session:
  ttl: 24h
  max_line_bytes: 256KiB
  max_parallel: 4
  calls_per_second: 20
  handshake_timeout: 3s
  shutdown_timeout: 30s
mcp:
  commands:
    files:
      command: /usr/local/bin/mcp-files
      args: ["/srv/shared", "--read-only"]
      env: [HOME, LOG_LEVEL=warn]
    echo:
      command: mcp-echo
  call_timeout: 5s
a2s:
  audit:
    elevated: [audited, in-progress]
metrics:
  enabled: true
`
	c, err := config.Parse("full.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != ":9090" || c.Log.Format != "json" || c.Log.SlogLevel() != slog.LevelDebug || c.Server.ShutdownGrace != 0 ||
		c.MaxBodyBytes != 3<<20 || len(c.Egress.AllowPrivate) != 3 || c.Limits.MaxExecutionTime != time.Minute ||
		c.Limits.MaxDocumentBytes != 2_000_000 || c.Limits.AsyncExecutionTime != 2*time.Hour ||
		c.RateLimits.RequestsPerMinute != -1 || c.RateLimits.MaxConcurrentExecutions != 4 || c.Workers != 2 ||
		c.Session.TTL != 24*time.Hour || !c.Metrics.Enabled ||
		c.Session.MaxLineBytes != 256<<10 || c.Session.MaxParallel != 4 || c.Session.CallsPerSecond != 20 ||
		c.Session.HandshakeTimeout != 3*time.Second || c.Session.ShutdownTimeout != 30*time.Second ||
		c.MCP.CallTimeout != 5*time.Second || !reflect.DeepEqual(c.A2S.Audit["elevated"], []string{"audited", "in-progress"}) ||
		len(c.A2S.Audit["basic"]) != 3 || !reflect.DeepEqual(c.A2S.Audit["admin"], []string{"audited"}) || len(c.MCP.Commands) != 2 || c.MCP.Commands["echo"].Command != "mcp-echo" ||
		!reflect.DeepEqual(c.MCP.Commands["files"], config.MCPCommand{Command: "/usr/local/bin/mcp-files",
			Args: []string{"/srv/shared", "--read-only"}, Env: []string{"HOME", "LOG_LEVEL=warn"}}) {
		t.Fatalf("parsed %+v", c)
	}
	if p := c.Egress.Policy(); len(p.AllowPrivate) != 3 || p.Validate() != nil {
		t.Fatalf("egress policy %+v", p)
	}
	if l := c.RateLimits; l.RequestsPerMinute != -1 || l.APICallsPerHour != 2000 {
		t.Fatalf("rate limits %+v", l)
	}
	// An empty file, and one with only comments, are the defaults.
	for _, src := range []string{"", "# nothing\n", "log:\n"} {
		c, err := config.Parse("empty.yaml", []byte(src))
		if err != nil || !reflect.DeepEqual(*c, config.Defaults()) {
			t.Fatalf("%q: %v", src, err)
		}
	}
}

// TestErrorGolden compares the error of each file in testdata/errors with its
// .golden file; go test -update rewrites them.
func TestErrorGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/errors/*.yaml")
	if len(files) == 0 {
		t.Fatal("no golden inputs")
	}
	for _, in := range files {
		t.Run(filepath.Base(in), func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			_, err = config.Parse(filepath.Base(in), src)
			if err == nil {
				t.Fatal("want an error")
			}
			fe, ok := fault.As(err)
			if !ok || fe.Kind != fault.Invalid {
				t.Fatalf("want an Invalid fault, got %v", err)
			}
			got := fe.Message + "\n"
			golden := strings.TrimSuffix(in, ".yaml") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if got != string(want) {
				t.Fatalf("got\n%s\nwant\n%s", got, want)
			}
			if strings.Contains(got, "do-not-put-secrets-here") {
				t.Fatal("a refused admin_key must not be echoed")
			}
			problems, _ := fe.Details["problems"].([]config.Problem)
			if len(problems) == 0 {
				t.Fatal("the problems must be in Details")
			}
			for _, p := range problems {
				if p.Line == 0 || p.Column == 0 || p.File != filepath.Base(in) {
					t.Errorf("problem without a file position: %+v", p)
				}
			}
		})
	}
}

func TestEnvironment(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "sluice.yaml")
	if err := os.WriteFile(file, []byte("addr: 127.0.0.1:7000\nworkers: 3\nlog:\n  level: warn\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := config.Load(config.Options{LookupEnv: env(map[string]string{
		"SLUICE_CONFIG":               file,
		"SLUICE_ADDR":                 "0.0.0.0:8443",
		"SLUICE_DATA":                 "/data",
		"SLUICE_LOG_FORMAT":           "json",
		"SLUICE_MAX_BODY_BYTES":       "4MiB",
		"SLUICE_EGRESS_ALLOW_PRIVATE": "10.0.0.0/8, localhost:9000,",
		"SLUICE_SESSION_TTL":          "2h",
		"SLUICE_METRICS":              "true",
		"SLUICE_WORKERS":              "  ", // blank: unset
	})})
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "0.0.0.0:8443" || c.DataDir != "/data" || c.Log.Level != "warn" || c.Log.Format != "json" ||
		c.MaxBodyBytes != 4<<20 || !reflect.DeepEqual(c.Egress.AllowPrivate, []string{"10.0.0.0/8", "localhost:9000"}) ||
		c.Session.TTL != 2*time.Hour || !c.Metrics.Enabled || c.Workers != 3 {
		t.Fatalf("loaded %+v", c)
	}
	_, err = config.Load(config.Options{Path: file, LookupEnv: env(map[string]string{
		"SLUICE_WORKERS":              "many",
		"SLUICE_METRICS":              "perhaps",
		"SLUICE_SESSION_TTL":          "1 hour",
		"SLUICE_LOG_LEVEL":            "loud",
		"SLUICE_EGRESS_ALLOW_PRIVATE": "10.0.0.0/40",
	})})
	want := []string{
		`SLUICE_WORKERS: workers: want an integer, got "many"`,
		`SLUICE_SESSION_TTL: session.ttl: want a duration such as "30s", "5m" or "1h", got "1 hour"`,
		`SLUICE_METRICS: metrics.enabled: want true or false, got "perhaps"`,
		`SLUICE_LOG_LEVEL: log.level: must be one of debug, info, warn, error, got "loud"`,
		`SLUICE_EGRESS_ALLOW_PRIVATE: egress.allow_private: "10.0.0.0/40" is not a CIDR`,
	}
	for _, w := range want {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v\n does not say %s", err, w)
		}
	}
	if _, err := config.Load(config.Options{Path: filepath.Join(dir, "missing.yaml"), LookupEnv: noEnv}); err == nil ||
		!strings.Contains(err.Error(), "missing.yaml does not exist") {
		t.Fatalf("missing file: %v", err)
	}
	big := filepath.Join(dir, "big.yaml")
	_ = os.WriteFile(big, bytes.Repeat([]byte("# padding\n"), 200_000), 0o644)
	if _, err := config.Load(config.Options{Path: big, LookupEnv: noEnv}); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("big file: %v", err)
	}
}

func TestAdminKey(t *testing.T) {
	dir := t.TempDir()
	const key = "admin-0123456789abcdef0123456789abcdef"
	keyFile := filepath.Join(dir, "admin.key")
	if err := os.WriteFile(keyFile, []byte(key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	openFile := filepath.Join(dir, "open.key")
	_ = os.WriteFile(openFile, []byte(key), 0o644)
	_ = os.Chmod(openFile, 0o644)
	cases := []struct {
		name string
		file string // config file text
		env  map[string]string
		want string // "" success, else a substring of the error
	}{
		{"from env", "", map[string]string{"SLUICE_ADMIN_KEY": key}, ""},
		{"from file", "admin_key_file: " + keyFile + "\n", nil, ""},
		{"from env file", "", map[string]string{"SLUICE_ADMIN_KEY_FILE": keyFile}, ""},
		{"both", "admin_key_file: " + keyFile + "\n", map[string]string{"SLUICE_ADMIN_KEY": key},
			"admin_key_file: set SLUICE_ADMIN_KEY or admin_key_file, not both"},
		{"short", "", map[string]string{"SLUICE_ADMIN_KEY": "short-key"}, "SLUICE_ADMIN_KEY: admin_key: the admin key has 9 characters; it needs at least 32"},
		{"file readable by others", "admin_key_file: " + openFile + "\n", nil, "has mode 0644"},
		{"file missing", "admin_key_file: " + filepath.Join(dir, "nope") + "\n", nil, "no such file"},
		{"none", "", nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "sluice.yaml")
			_ = os.WriteFile(path, []byte(c.file), 0o644)
			cfg, err := config.Load(config.Options{Path: path, LookupEnv: env(c.env)})
			if c.want != "" {
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("error %v, want %q", err, c.want)
				}
				if strings.Contains(err.Error(), key) || strings.Contains(err.Error(), "short-key") {
					t.Fatalf("the error shows the key: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.name == "none" {
				if cfg.AdminKey.Reveal() != "" || cfg.AdminKey.String() != "[unset]" {
					t.Fatal("no admin key was set")
				}
				return
			}
			if cfg.AdminKey.Reveal() != key {
				t.Fatalf("admin key %q", cfg.AdminKey.Reveal())
			}
			var logs bytes.Buffer
			slog.New(slog.NewJSONHandler(&logs, nil)).Info("config", "config", cfg)
			j, _ := json.Marshal(cfg)
			for _, text := range []string{fmt.Sprint(cfg), fmt.Sprintf("%+v", *cfg), fmt.Sprintf("%#v", cfg), string(j), logs.String()} {
				if strings.Contains(text, key) {
					t.Fatalf("the admin key prints: %s", text)
				}
			}
			if !strings.Contains(logs.String(), `"admin_key_set":true`) {
				t.Fatalf("log line: %s", logs.String())
			}
		})
	}
}

// FuzzParse checks that no input panics the decoder, that what is accepted is
// within bounds, and that every problem says where it is.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/errors/*.yaml")
	for _, s := range seeds {
		b, _ := os.ReadFile(s)
		f.Add(b)
	}
	f.Add(config.DefaultsYAML())
	f.Add([]byte("a: &a [*a, *a]\nb: *a\n"))
	f.Add([]byte("limits: {max_execution_time: 99999999999999999999}\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		c, err := config.Parse("fuzz.yaml", src)
		if err != nil {
			fe, ok := fault.As(err)
			if !ok || fe.Kind != fault.Invalid || fe.Message == "" {
				t.Fatalf("error %v", err)
			}
			for _, p := range fe.Details["problems"].([]config.Problem) {
				if p.Line == 0 && p.Path == "" {
					t.Fatalf("a problem without position or path: %+v", p)
				}
			}
			return
		}
		if c.Workers < 1 || c.Workers > 1024 || c.MaxBodyBytes < c.Limits.MaxDocumentBytes || c.Server.WriteTimeout <= c.Limits.MaxExecutionTime {
			t.Fatalf("accepted an out-of-bounds config: %+v", c)
		}
	})
}

func TestAgentsQueue(t *testing.T) {
	const password = "s3cret-queue-pass"
	cases := []struct {
		file string
		env  map[string]string
		want string // "" success, else a substring of the error
	}{
		{"agents:\n  queue: nats://127.0.0.1:4222\n", nil, ""},
		{"agents:\n  queue: kafka://127.0.0.1:9092,127.0.0.1:9093\n", nil, ""},
		{"", map[string]string{"SLUICE_QUEUE": "nats://sluice:" + password + "@127.0.0.1:4222", "SLUICE_AGENT_WORKERS": "0"}, ""},
		{"agents:\n  queue: amqp://127.0.0.1\n", nil, `agents.queue: want nats://HOST:PORT or kafka://HOST:PORT (or empty for the store's queue), got scheme "amqp"`},
		{"agents:\n  queue: nats://\n", nil, "agents.queue: names no host"},
		{"agents:\n  workers: -1\n", nil, "agents.workers: must be between 0 and 1024, got -1"},
		{"agents:\n  max_wait: 10ms\n", nil, "agents.max_wait: must be between"},
		{"agents:\n  monitoring_topic: \"a\\tb\"\n", nil, "agents.monitoring_topic"},
		{"discovery:\n  embeddings:\n    vector_weight: -0.5\n", nil, "discovery.embeddings.vector_weight: must be between 0 and 100, got -0.5"},
		{"discovery:\n  embeddings:\n    vector_weight: .nan\n", nil, "discovery.embeddings.vector_weight: want a finite number"},
		{"discovery:\n  embeddings:\n    vector_weight: lots\n", nil, "discovery.embeddings.vector_weight: want a number, got"},
		{"discovery:\n  embeddings:\n    vector_weight: 0.25\n", nil, ""},
		{"discovery:\n  embeddings:\n    vector_weight: 2\n", nil, ""},
		{"discovery:\n  embeddings:\n    timeout: 10ms\n", nil, "discovery.embeddings.timeout: must be between"},
		{"discovery:\n  embeddings:\n    batch: 0\n", nil, "discovery.embeddings.batch: must be between 1 and 2048, got 0"},
	}
	for _, c := range cases {
		cfg := loadWant(t, c.file, c.env, c.want)
		if cfg == nil {
			continue
		}
		if c.env != nil {
			if cfg.Agents.Workers != 0 || cfg.Agents.QueueKind() != "nats" || !strings.Contains(cfg.Agents.Queue, password) {
				t.Fatalf("env not applied: %+v", cfg.Agents)
			}
			var logs bytes.Buffer
			slog.New(slog.NewJSONHandler(&logs, nil)).Info("config", "config", cfg)
			j, _ := json.Marshal(cfg)
			for _, text := range []string{fmt.Sprint(cfg), fmt.Sprintf("%+v", *cfg), fmt.Sprintf("%#v", *cfg), string(j), logs.String()} {
				if strings.Contains(text, password) {
					t.Fatalf("the queue password prints: %s", text)
				}
			}
		}
	}
}

// loadWant loads a config file of text file with environment vars: nil
// when it fails as want says ("" wants no error).
func loadWant(t *testing.T, file string, vars map[string]string, want string) *config.Config {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sluice.yaml")
	_ = os.WriteFile(path, []byte(file), 0o644)
	cfg, err := config.Load(config.Options{Path: path, LookupEnv: env(vars)})
	if want != "" {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("%q: error %v, want %q", file, err, want)
		}
		return nil
	}
	if err != nil {
		t.Fatalf("%q: %v", file, err)
	}
	return cfg
}

// agents.acp: its allowlist is checked like mcp.commands (and dir must be
// absolute), its bounds are bounded, and the values its env sets never
// print.
func TestAgentsACP(t *testing.T) {
	const secret = "acp-agent-s3cret"
	cases := []struct{ file, want string }{
		{"agents:\n  acp:\n    commands:\n      coder: {command: /usr/bin/coder, args: [--acp], env: [HOME, \"TOKEN=" + secret + "\"], dir: /srv/work, entry_args: true}\n", ""},
		{"agents:\n  acp:\n    commands:\n      coder: {command: coder, dir: srv}\n", `agents.acp.commands.coder.dir: "srv" is not an absolute path`},
		{"agents:\n  acp:\n    commands:\n      coder: {args: [x]}\n", "agents.acp.commands.coder: needs command"},
		{"agents:\n  acp:\n    commands:\n      \"a b\": {command: x}\n", `agents.acp.commands.a b: name "a b"`},
		{"agents:\n  acp:\n    commands:\n      coder: {command: \"coder --acp\"}\n", "agents.acp.commands.coder.command"},
		{"agents:\n  acp:\n    commands:\n      coder: {command: x, env: [\"=v\"]}\n", "agents.acp.commands.coder.env[0]: want NAME or NAME=value"},
		{"agents:\n  acp:\n    max_processes: 0\n", "agents.acp.max_processes: must be between 1 and 4096, got 0"},
		{"agents:\n  acp:\n    idle_timeout: 10ms\n", "agents.acp.idle_timeout: must be between"},
		{"agents:\n  acp:\n    start_timeout: 1ms\n", "agents.acp.start_timeout: must be between"},
	}
	for _, c := range cases {
		cfg := loadWant(t, c.file, nil, c.want)
		if cfg == nil {
			continue
		}
		cmd := cfg.Agents.ACP.Commands["coder"]
		if cmd.Command != "/usr/bin/coder" || !cmd.EntryArgs || cmd.Dir != "/srv/work" || len(cmd.Env) != 2 {
			t.Fatalf("parsed %+v", cmd)
		}
		j, _ := json.Marshal(cfg)
		for _, text := range []string{fmt.Sprint(cfg), fmt.Sprintf("%+v", *cfg), fmt.Sprintf("%#v", *cfg), string(j)} {
			if strings.Contains(text, secret) {
				t.Fatalf("the env value prints: %s", text)
			}
		}
	}
}

func TestDiscoveryVectorWeight(t *testing.T) {
	for file, want := range map[string]float64{
		"": 1,
		"discovery:\n  embeddings:\n    vector_weight: 0.25\n": 0.25,
		"discovery:\n  embeddings:\n    vector_weight: 3\n":    3,
	} {
		path := filepath.Join(t.TempDir(), "sluice.yaml")
		_ = os.WriteFile(path, []byte(file), 0o644)
		cfg, err := config.Load(config.Options{Path: path, LookupEnv: env(nil)})
		if err != nil {
			t.Fatalf("%q: %v", file, err)
		}
		if got := cfg.Discovery.Embeddings.VectorWeight; got != want {
			t.Fatalf("%q: vector weight %v, want %v", file, got, want)
		}
	}
}

func TestDiscoveryWordNet(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sluice.yaml")
	_ = os.WriteFile(path, []byte("discovery:\n  wordnet: false\n"), 0o644)
	cfg, err := config.Load(config.Options{Path: path, LookupEnv: env(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Discovery.WordNet || !config.Defaults().Discovery.WordNet {
		t.Fatalf("wordnet: %v in the file's config, %v by default", cfg.Discovery.WordNet, config.Defaults().Discovery.WordNet)
	}
	_ = os.WriteFile(path, []byte("discovery:\n  wordnet: maybe\n"), 0o644)
	if _, err := config.Load(config.Options{Path: path, LookupEnv: env(nil)}); err == nil || !strings.Contains(err.Error(), "discovery.wordnet") {
		t.Fatalf("wordnet: maybe: %v", err)
	}
}

func TestDiscoveryWordVectors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sluice.yaml")
	_ = os.WriteFile(path, []byte("discovery:\n  word_vectors: false\n"), 0o644)
	cfg, err := config.Load(config.Options{Path: path, LookupEnv: env(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Discovery.WordVectors || !config.Defaults().Discovery.WordVectors {
		t.Fatalf("word_vectors: %v in the file's config, %v by default", cfg.Discovery.WordVectors, config.Defaults().Discovery.WordVectors)
	}
	_ = os.WriteFile(path, []byte("discovery:\n  word_vectors: maybe\n"), 0o644)
	if _, err := config.Load(config.Options{Path: path, LookupEnv: env(nil)}); err == nil || !strings.Contains(err.Error(), "discovery.word_vectors") {
		t.Fatalf("word_vectors: maybe: %v", err)
	}
}

// discovery.learning: on by default with a 180-day retention; off, or
// another retention, from the file; a retention under an hour or negative
// is refused naming its path, and 0 keeps the words for ever.
func TestDiscoveryLearning(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sluice.yaml")
	if d := config.Defaults().Discovery.Learning; !d.Enabled || d.Retention != 180*24*time.Hour {
		t.Fatalf("defaults: %+v", d)
	}
	for _, c := range []struct {
		yaml string
		want config.Learning
		err  string
	}{
		{"enabled: false", config.Learning{Enabled: false, Retention: 4320 * time.Hour}, ""},
		{"retention: 720h", config.Learning{Enabled: true, Retention: 720 * time.Hour}, ""},
		{"retention: 0s", config.Learning{Enabled: true}, ""},
		{"retention: 5m", config.Learning{}, "discovery.learning.retention"},
		{"retention: -1h", config.Learning{}, "discovery.learning.retention"},
		{"enabled: sometimes", config.Learning{}, "discovery.learning.enabled"},
	} {
		_ = os.WriteFile(path, []byte("discovery:\n  learning:\n    "+c.yaml+"\n"), 0o644)
		cfg, err := config.Load(config.Options{Path: path, LookupEnv: env(nil)})
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: %v, want an error naming %s", c.yaml, err, c.err)
			}
			continue
		}
		if err != nil || cfg.Discovery.Learning != c.want {
			t.Errorf("%s: %+v, %v", c.yaml, cfg.Discovery.Learning, err)
		}
	}
}

// discovery.abbreviations and discovery.synonyms: the operator's vocabulary,
// each entry checked and named where it is wrong.
func TestDiscoveryVocabulary(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sluice.yaml")
	_ = os.WriteFile(path, []byte("discovery:\n  abbreviations:\n    po: purchase order\n    \"1:1\": \"\"\n  synonyms:\n    - invoice bill statement\n"), 0o644)
	cfg, err := config.Load(config.Options{Path: path, LookupEnv: env(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if d := cfg.Discovery; d.Abbreviations["po"] != "purchase order" || d.Abbreviations["1:1"] != "" || len(d.Abbreviations) != 2 ||
		len(d.Synonyms) != 1 || d.Synonyms[0] != "invoice bill statement" {
		t.Fatalf("%+v", d)
	}
	for _, tc := range []struct{ yaml, want string }{
		{"discovery:\n  abbreviations:\n    \"two words\": x\n", "discovery.abbreviations.two words: a shorthand is one word"},
		{"discovery:\n  abbreviations:\n    po: \"a\\tb\"\n", "discovery.abbreviations.po: the words it stands for"},
		{"discovery:\n  abbreviations:\n    po: [a]\n", "discovery.abbreviations.po"},
		{"discovery:\n  abbreviations: [po]\n", "discovery.abbreviations"},
		{"discovery:\n  synonyms:\n    - invoice\n", "discovery.synonyms[0]: a group is 2 to 20 words"},
		{"discovery:\n  synonyms:\n    - ok fine\n    - bill \"invoice\"\n", `discovery.synonyms[1]: word "\"invoice\""`},
		{"discovery:\n  synonyms: bill invoice\n", "discovery.synonyms: want a list"},
	} {
		_ = os.WriteFile(path, []byte(tc.yaml), 0o644)
		_, err := config.Load(config.Options{Path: path, LookupEnv: env(nil)})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.yaml, err, tc.want)
		}
	}
}

// loadText loads a config file holding text, without the environment.
func loadText(t *testing.T, text string) (*config.Config, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sluice.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return config.Load(config.Options{Path: path, LookupEnv: env(nil)})
}

func TestStoreMaxExecutionBytes(t *testing.T) {
	for file, want := range map[string]string{
		"store:\n  max_execution_bytes: 4KiB\n":  "",
		"store:\n  max_execution_bytes: 64MiB\n": "",
		"store:\n  max_execution_bytes: 65MiB\n": "store.max_execution_bytes: must be between 1KiB and 64MiB",
		"store:\n  max_execution_bytes: 10\n":    "store.max_execution_bytes: must be between 1KiB and 64MiB",
	} {
		cfg, err := loadText(t, file)
		switch {
		case want == "" && err != nil:
			t.Fatalf("%q: %v", file, err)
		case want == "" && cfg.Store.MaxExecutionBytes < 4<<10:
			t.Fatalf("%q: %d", file, cfg.Store.MaxExecutionBytes)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Fatalf("%q: %v, want %q", file, err, want)
		}
	}
}

// The standard OTEL_* variables set the telemetry section, and a bad one is
// refused naming the variable.
func TestTelemetryFromOTelEnvironment(t *testing.T) {
	c, err := config.Load(config.Options{LookupEnv: env(map[string]string{
		"OTEL_TRACES_EXPORTER":        "otlp",
		"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318",
		"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
		"OTEL_SERVICE_NAME":           "edge-gw",
		"OTEL_TRACES_SAMPLER":         "parentbased_traceidratio",
		"OTEL_TRACES_SAMPLER_ARG":     "0.25",
	})})
	if err != nil {
		t.Fatal(err)
	}
	tel := c.Telemetry
	if !tel.Enabled() || tel.Endpoint != "http://127.0.0.1:4318" || tel.Protocol != "grpc" || tel.ServiceName != "edge-gw" ||
		tel.Sampler != "parentbased_traceidratio" || tel.Ratio() != 0.25 {
		t.Fatalf("telemetry = %+v", tel)
	}
	_, err = config.Load(config.Options{LookupEnv: env(map[string]string{"OTEL_TRACES_SAMPLER": "sometimes"})})
	if err == nil || !strings.Contains(err.Error(), "OTEL_TRACES_SAMPLER") || !strings.Contains(err.Error(), "telemetry.sampler") {
		t.Fatalf("a bad sampler: %v", err)
	}
	_, err = config.Load(config.Options{LookupEnv: env(map[string]string{"OTEL_TRACES_SAMPLER_ARG": "2"})})
	if err == nil || !strings.Contains(err.Error(), "telemetry.sampler_arg") {
		t.Fatalf("a ratio over 1: %v", err)
	}
}

// TestRetention: 0 keeps for ever, ages under an hour and batches over the
// store's bound are refused with their path, and the environment sets runs.
func TestRetention(t *testing.T) {
	for file, want := range map[string]string{
		"retention:\n  runs: 0s\n  audit: 0s\n": "",
		"retention:\n  runs: 90h\n":             "",
		"retention:\n  runs: 30m\n":             "retention.runs",
		"retention:\n  batch: 0\n":              "retention.batch",
		"retention:\n  batch: 5001\n":           "retention.batch",
		"retention:\n  pause: 2m\n":             "retention.pause",
		"retention:\n  interval: 0s\n":          "retention.interval",
		"retention:\n  reclaim: 1MiB\n":         "",
		"retention:\n  keep: 1\n":               "retention.keep",
	} {
		_, err := loadText(t, file)
		switch {
		case want == "" && err != nil:
			t.Errorf("%q: %v", file, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%q: %v, want a problem at %s", file, err, want)
		}
	}
	cfg, err := config.Load(config.Options{LookupEnv: env(map[string]string{"SLUICE_RETENTION_RUNS": "48h", "SLUICE_RETENTION_AUDIT": "0s"})})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Retention.Runs != 48*time.Hour || cfg.Retention.Audit != 0 {
		t.Fatalf("from the environment: %+v", cfg.Retention)
	}
}
