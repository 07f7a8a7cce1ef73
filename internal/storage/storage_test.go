package storage_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/storage"
)

var (
	_ op.Storage = (*storage.Memory)(nil)
	_ op.Storage = (*storage.Files)(nil)
	_ op.Storage = (*storage.Mux)(nil)
)

var ctx = context.Background()

func local(acct string) op.Area { return op.Area{Storage: "localStorage", Account: acct} }
func session(acct, s string) op.Area {
	return op.Area{Storage: "sessionStorage", Account: acct, SessionID: s}
}
func file(acct string) op.Area { return op.Area{Storage: "file", Account: acct} }

func TestMemoryScopes(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	m := storage.NewMemory(clk)
	must(t, m.Put(ctx, local("a"), "k", "a-local"))
	must(t, m.Put(ctx, session("a", "s1"), "k", "a-s1"))

	cases := []struct {
		area op.Area
		want any
		ok   bool
	}{
		{local("a"), "a-local", true},
		{local("b"), nil, false},                             // other account
		{session("a", "s1"), "a-s1", true},                   //
		{session("a", "s2"), nil, false},                     // other session
		{session("b", "s1"), nil, false},                     // same session id, other account
		{op.Area{Storage: "file", Account: "a"}, nil, false}, // storages are separate
	}
	for _, c := range cases {
		v, ok, err := m.Get(ctx, c.area, "k")
		if err != nil || ok != c.ok || v != c.want {
			t.Errorf("%+v: got %v %v %v, want %v %v", c.area, v, ok, err, c.want, c.ok)
		}
	}

	clk.Advance(59 * time.Minute)
	if _, ok, _ := m.Get(ctx, session("a", "s1"), "k"); !ok {
		t.Fatal("session entry expired early")
	}
	clk.Advance(time.Minute)
	if _, ok, _ := m.Get(ctx, session("a", "s1"), "k"); ok {
		t.Fatal("session entry outlived its hour")
	}
	if v, ok, _ := m.Get(ctx, local("a"), "k"); !ok || v != "a-local" {
		t.Fatal("localStorage must not expire")
	}
}

func TestMemoryBounds(t *testing.T) {
	m := storage.NewMemory(nil)
	m.MaxKeys = 2
	must(t, m.Put(ctx, local("a"), "1", 1.0))
	must(t, m.Put(ctx, local("a"), "2", 2.0))
	must(t, m.Put(ctx, local("a"), "2", 3.0)) // overwriting is not growing
	if err := m.Put(ctx, local("a"), "3", 3.0); err == nil {
		t.Fatal("MaxKeys not enforced")
	}
	must(t, m.Put(ctx, local("b"), "3", 3.0)) // per account
	err := m.Put(ctx, local("a"), "../x", 1.0)
	if fe, ok := fault.As(err); !ok || fe.SpecType() != fault.DataError {
		t.Fatalf("bad key: want DataError, got %v", err)
	}
}

func TestFilesRoundTrip(t *testing.T) {
	dir := t.TempDir()
	f := &storage.Files{Dir: dir}
	val := map[string]any{"n": 1.5, "list": []any{"x", true, nil}}
	must(t, f.Put(ctx, file("acct"), "reports/2026/jan", val))
	must(t, f.Put(ctx, file("acct"), "reports/2026/jan", map[string]any{"n": 2.0})) // overwrite
	v, ok, err := f.Get(ctx, file("acct"), "reports/2026/jan")
	if err != nil || !ok || v.(map[string]any)["n"] != 2.0 {
		t.Fatalf("got %v %v %v", v, ok, err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "acct", "reports", "2026", "jan"))
	if err != nil || string(b) != `{"n":2}` {
		t.Fatalf("file content %q %v", b, err)
	}
	if _, ok, err := f.Get(ctx, file("other"), "reports/2026/jan"); ok || err != nil {
		t.Fatal("another account read the value")
	}
	if _, ok, err := f.Get(ctx, file("acct"), "missing"); ok || err != nil {
		t.Fatalf("missing key: %v %v", ok, err)
	}
	if _, ok, err := f.Get(ctx, file("acct"), "reports/2026/jan/deeper"); ok || err != nil {
		t.Fatalf("key below a value: %v %v", ok, err)
	}
	// a value cannot become a folder
	err = f.Put(ctx, file("acct"), "reports/2026/jan/deeper", 1.0)
	if fe, ok := fault.As(err); !ok || fe.SpecType() != fault.DataError {
		t.Fatalf("want DataError for a clash, got %v", err)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "acct", "reports", "2026"))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".tmp") {
			t.Fatalf("temporary file left behind: %s", e.Name())
		}
	}
}

func TestFilesEscapes(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "data")
	outside := filepath.Join(base, "outside")
	must(t, os.MkdirAll(filepath.Join(dir, "acct"), 0o700))
	must(t, os.MkdirAll(outside, 0o700))
	must(t, os.WriteFile(filepath.Join(outside, "secret"), []byte(`"outside value"`), 0o600))
	// a symlink inside the account's folder that points outside it
	must(t, os.Symlink(outside, filepath.Join(dir, "acct", "link")))
	must(t, os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "acct", "filelink")))
	f := &storage.Files{Dir: dir}

	for _, key := range []string{"../x", "/etc/passwd", "a/../../x", "..", "a/./b", "nul\x00", "a//b", strings.Repeat("k", 600)} {
		if err := f.Put(ctx, file("acct"), key, "v"); err == nil {
			t.Errorf("Put %q: expected a refusal", key)
		}
		if _, ok, err := f.Get(ctx, file("acct"), key); err == nil || ok {
			t.Errorf("Get %q: expected a refusal", key)
		}
	}
	for _, key := range []string{"link/secret", "filelink", "link/new"} {
		v, ok, err := f.Get(ctx, file("acct"), key)
		if err == nil || ok {
			t.Errorf("Get %q through a symlink: got %v %v, want a refusal", key, v, ok)
		} else if fe, _ := fault.As(err); fe.SpecType() != fault.PermissionError {
			t.Errorf("Get %q: want PermissionError, got %v", key, err)
		}
	}
	for _, key := range []string{"link/new", "link/sub/new"} {
		if err := f.Put(ctx, file("acct"), key, "pwned"); err == nil {
			t.Errorf("Put %q through a symlink: expected a refusal", key)
		}
	}
	// Writing a key that is a symlink replaces the link itself (write, then
	// rename over it): the file it pointed to is never opened.
	must(t, f.Put(ctx, file("acct"), "filelink", "replaced"))
	if st, err := os.Lstat(filepath.Join(dir, "acct", "filelink")); err != nil || st.Mode()&os.ModeSymlink != 0 {
		t.Fatalf("filelink should now be a regular file: %v %v", st, err)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret")); string(b) != `"outside value"` {
		t.Fatal("a write escaped the account's folder")
	}
	if _, err := os.Stat(filepath.Join(outside, "new")); err == nil {
		t.Fatal("a file was created outside the account's folder")
	}
	// accounts are folder names too
	if err := f.Put(ctx, file("../acct2"), "k", "v"); err == nil {
		t.Fatal("an account with '..' was accepted")
	}
	if err := f.Put(ctx, file(""), "k", "v"); err == nil {
		t.Fatal("an empty account was accepted")
	}
}

func TestFilesBounds(t *testing.T) {
	dir := t.TempDir()
	f := &storage.Files{Dir: dir, MaxBytes: 10}
	must(t, f.Put(ctx, file("a"), "big", "this string is longer than ten bytes"))
	if _, _, err := f.Get(ctx, file("a"), "big"); err == nil {
		t.Fatal("MaxBytes not enforced on read")
	}
	must(t, os.WriteFile(filepath.Join(dir, "a", "garbage"), []byte("{not json"), 0o600))
	if _, _, err := f.Get(ctx, file("a"), "garbage"); err == nil {
		t.Fatal("a non-JSON file must be a DataError")
	}
}

func TestMux(t *testing.T) {
	mem := storage.NewMemory(nil)
	files := &storage.Files{Dir: t.TempDir()}
	mux := storage.NewMux(mem, files)
	must(t, mux.Put(ctx, local("a"), "k", "L"))
	must(t, mux.Put(ctx, session("a", "s"), "k", "S"))
	must(t, mux.Put(ctx, file("a"), "k", "F"))
	for _, c := range []struct {
		area op.Area
		want string
	}{{local("a"), "L"}, {session("a", "s"), "S"}, {file("a"), "F"}} {
		if v, ok, err := mux.Get(ctx, c.area, "k"); err != nil || !ok || v != c.want {
			t.Errorf("%s: got %v %v %v", c.area.Storage, v, ok, err)
		}
	}
	if v, ok, _ := mem.Get(ctx, file("a"), "k"); ok {
		t.Fatalf("file values went to memory: %v", v)
	}
	if err := mux.Put(ctx, op.Area{Storage: "cloud", Account: "a"}, "k", 1.0); err == nil {
		t.Fatal("unknown storage accepted")
	}
	noFiles := storage.NewMux(mem, nil)
	err := noFiles.Put(ctx, file("a"), "k", 1.0)
	if fe, ok := fault.As(err); !ok || !strings.Contains(fe.Message, "not configured") {
		t.Fatalf("missing backend: %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
