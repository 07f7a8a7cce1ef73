package sqlite_test

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/sqlite"
)

var ctx = context.Background()

func TestSecondOpenIsRefused(t *testing.T) {
	dir := t.TempDir()
	db, err := sqlite.Open(ctx, sqlite.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	_, err = sqlite.Open(ctx, sqlite.Options{Dir: dir})
	if fault.KindOf(err) != fault.Unavailable || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Fatalf("second open: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = sqlite.Open(ctx, sqlite.Options{Dir: dir})
	if err != nil {
		t.Fatalf("open after close: %v", err)
	}
	db.Close()
}

func TestReopenKeepsData(t *testing.T) {
	dir := t.TempDir()
	db, err := sqlite.Open(ctx, sqlite.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateAccount(ctx, store.Account{ID: "alice", Name: "Alice"}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, err = sqlite.Open(ctx, sqlite.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	a, err := db.GetAccount(ctx, "alice")
	if err != nil || a.Name != "Alice" {
		t.Fatalf("after reopen: %+v %v", a, err)
	}
	if st, err := os.Stat(filepath.Join(dir, sqlite.FileName)); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("database file mode: %v %v", st.Mode(), err)
	}
}

func TestNewerSchemaIsRefused(t *testing.T) {
	dir := t.TempDir()
	db, err := sqlite.Open(ctx, sqlite.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	raw, err := sql.Open("sqlite", filepath.Join(dir, sqlite.FileName))
	if err != nil {
		t.Fatal(err)
	}
	future := sqlite.SchemaVersion() + 5
	if _, err := raw.Exec(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, 'future.sql', 0)`, future); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	_, err = sqlite.Open(ctx, sqlite.Options{Dir: dir})
	if fault.KindOf(err) != fault.Unavailable || !strings.Contains(err.Error(), fmt.Sprintf("version %d", future)) ||
		!strings.Contains(err.Error(), "newer sluice") {
		t.Fatalf("open of a newer database: %v", err)
	}
	// The refused open released the directory.
	db, err = sqlite.Open(ctx, sqlite.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
}

func TestBadDirectory(t *testing.T) {
	for _, dir := range []string{"", "a?b"} {
		if _, err := sqlite.Open(ctx, sqlite.Options{Dir: dir}); fault.KindOf(err) != fault.Invalid {
			t.Errorf("dir %q: %v", dir, err)
		}
	}
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o600)
	if _, err := sqlite.Open(ctx, sqlite.Options{Dir: file}); err == nil {
		t.Error("a file as data directory was accepted")
	}
}

const crashEnv = "SLUICE_STORE_CRASH_DIR"

// TestCrashKeepsAcknowledgedWrites re-executes the test binary as a writer
// that prints the id of every execution the store acknowledged, kills it
// with SIGKILL mid-stream, and checks that every acknowledged execution (and
// its final status, when that was acknowledged too) is in the database.
func TestCrashKeepsAcknowledgedWrites(t *testing.T) {
	if dir := os.Getenv(crashEnv); dir != "" {
		crashWriter(dir)
		return
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashKeepsAcknowledgedWrites$")
	cmd.Env = append(os.Environ(), crashEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	created, finished := map[string]bool{}, map[string]bool{}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		kind, id, _ := strings.Cut(sc.Text(), " ")
		switch kind {
		case "created":
			created[id] = true
		case "finished":
			finished[id] = true
		}
		if len(finished) >= 300 {
			break
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Drain what was already printed: those writes were acknowledged too.
	for sc.Scan() {
		kind, id, _ := strings.Cut(sc.Text(), " ")
		if kind == "created" {
			created[id] = true
		} else if kind == "finished" {
			finished[id] = true
		}
	}
	cmd.Wait()
	if len(finished) < 300 {
		t.Fatalf("the writer stopped early: %d finished", len(finished))
	}

	db, err := sqlite.Open(ctx, sqlite.Options{Dir: dir})
	if err != nil {
		t.Fatalf("reopen after kill -9: %v", err)
	}
	defer db.Close()
	for id := range created {
		e, err := db.GetExecution(ctx, "crash", id)
		if err != nil {
			t.Fatalf("acknowledged execution %s lost: %v", id, err)
		}
		if finished[id] && e.Status != store.StatusSuccess {
			t.Fatalf("acknowledged final status of %s lost: %s", id, e.Status)
		}
	}
	t.Logf("%d acknowledged executions (%d finished) survived SIGKILL", len(created), len(finished))
}

// crashWriter writes until it is killed; each line it prints is a write the
// store acknowledged.
func crashWriter(dir string) {
	db, err := sqlite.Open(ctx, sqlite.Options{Dir: dir})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if _, err := db.CreateAccount(ctx, store.Account{ID: "crash"}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var mu sync.Mutex
	say := func(kind, id string) {
		mu.Lock()
		fmt.Printf("%s %s\n", kind, id)
		mu.Unlock()
	}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				id := fmt.Sprintf("w%d-%06d", w, i)
				e := store.Execution{ID: id, AccountID: "crash", ClientID: "c-" + id, Digest: "d", Document: []byte("{}"), Status: store.StatusRunning}
				if _, _, err := db.CreateExecution(ctx, e); err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(2)
				}
				say("created", id)
				if err := db.UpdateExecution(ctx, "crash", id, store.ExecutionUpdate{Status: store.StatusSuccess, Result: []byte(`{"ok":true}`)}); err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(2)
				}
				say("finished", id)
			}
		}()
	}
	wg.Wait()
}
