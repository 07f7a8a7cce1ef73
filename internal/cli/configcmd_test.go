package cli_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/config"
)

// TestInitWritesTheDefaults: the file init writes loads as config.Defaults()
// and names every key (each key's source is the file, none the defaults),
// init refuses to overwrite it without --force, and prints the next steps.
func TestInitWritesTheDefaults(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sluice.yaml")
	code, out, errb := sluice(t, "", "init", path)
	if code != 0 || !strings.Contains(out, "Next:") || !strings.Contains(out, "3. Start the server: sluice serve --config "+path) {
		t.Fatalf("init: %d %q %q", code, out, errb)
	}
	cfg, sources, err := config.LoadSources(config.Options{Path: path, LookupEnv: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	if want := config.Defaults(); !reflect.DeepEqual(*cfg, want) {
		t.Fatalf("the written file loads as\n%+v\nwant the defaults\n%+v", *cfg, want)
	}
	for _, e := range config.Entries(cfg) {
		if e.Section || e.Path == "admin_key" {
			continue
		}
		if src := sources.Of(e.Path); src.Kind != "file" {
			t.Errorf("%s is not in the written file (source %s)", e.Path, src)
		}
	}

	if err := os.WriteFile(path, []byte("addr: 127.0.0.1:9\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errb = sluice(t, "", "init", path)
	if b, _ := os.ReadFile(path); code != 2 || !strings.Contains(errb, path+" exists; keep it, or pass --force") || string(b) != "addr: 127.0.0.1:9\n" {
		t.Fatalf("init over a file: %d %q %q", code, errb, b)
	}
	if code, _, errb = sluice(t, "", "init", "--force", path); code != 0 {
		t.Fatalf("init --force: %d %s", code, errb)
	}
	if cfg, err := config.Parse(path, mustRead(t, path)); err != nil || cfg.Addr != config.Defaults().Addr {
		t.Fatalf("after --force: %v %v", cfg, err)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestConfigPrint: each value's source (default, file:line:col, environment,
// flag), secrets redacted, and the output is YAML that loads back as the
// configuration printed.
func TestConfigPrint(t *testing.T) {
	file := writeFile(t, "s.yaml", "log:\n  format: json\nmcp:\n  commands:\n    files:\n      command: /bin/true\n      env: [\"HOME\", \"TOKEN=mcp-secret-1\"]\nagents:\n  queue: nats://user:queue-secret-2@127.0.0.1:4222\n")
	t.Setenv("SLUICE_LOG_LEVEL", "debug")
	t.Setenv("SLUICE_ADMIN_KEY", "admin-secret-3-0123456789abcdef0123456789")
	t.Setenv("SLUICE_CONFIG", "")
	code, out, errb := sluice(t, "", "config", "print", "--config", file, "--addr", "127.0.0.1:9", "--store", "postgres://u:store-secret-4@db/sluice")
	if code != 0 {
		t.Fatalf("config print: %d %s", code, errb)
	}
	for _, want := range []string{
		`addr: "127.0.0.1:9"`, "# flag --addr",
		`data_dir: "./sluice-data"`, "# default",
		`  format: "json"`, "# " + file + ":2:11",
		`  level: "debug"`, "# environment SLUICE_LOG_LEVEL",
		`  dsn: "postgres://u:xxxxx@db/sluice"`, "# flag --store",
		`  queue: "nats://user:xxxxx@127.0.0.1:4222"`,
		`"TOKEN=[REDACTED]"`,
		`# admin_key: "[REDACTED]"`, "# environment SLUICE_ADMIN_KEY",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("config print lacks %q:\n%s", want, out)
		}
	}
	for _, secret := range []string{"mcp-secret-1", "queue-secret-2", "admin-secret-3", "store-secret-4"} {
		if strings.Contains(out+errb, secret) {
			t.Errorf("config print shows a secret %q", secret)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "addr:") && !strings.HasSuffix(line, "# flag --addr") {
			t.Errorf("addr's source: %q", line)
		}
	}

	// Without secrets the output reads back as the same configuration.
	t.Setenv("SLUICE_ADMIN_KEY", "")
	code, out, errb = sluice(t, "", "config", "print", "--addr", "127.0.0.1:9", "--agent-workers", "3")
	if code != 0 {
		t.Fatalf("config print: %d %s", code, errb)
	}
	back, err := config.Parse("printed", []byte(out))
	if err != nil {
		t.Fatalf("the output does not load: %v\n%s", err, out)
	}
	want := config.Defaults()
	want.Addr, want.Log.Level, want.Agents.Workers = "127.0.0.1:9", "debug", 3
	if !reflect.DeepEqual(*back, want) {
		t.Fatalf("printed config loads as\n%+v\nwant\n%+v", *back, want)
	}

	code, _, errb = sluice(t, "", "config", "print", "--config", writeFile(t, "bad.yaml", "adr: x\n"))
	if code != 2 || !strings.Contains(errb, `bad.yaml:1:1: adr: unknown key "adr"; did you mean "addr"?`) {
		t.Fatalf("a bad file: %d %q", code, errb)
	}
}
