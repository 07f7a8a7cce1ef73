package dirlock_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store/dirlock"
)

var since = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

func TestSecondOpenNamesTheHolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	l, err := dirlock.Acquire(dir, since)
	if err != nil {
		t.Fatal(err)
	}
	_, err = dirlock.Acquire(dir, since)
	if fault.KindOf(err) != fault.Unavailable {
		t.Fatalf("second acquire: %v (kind %v), want Unavailable", err, fault.KindOf(err))
	}
	host, _ := os.Hostname()
	for _, want := range []string{dir, fmt.Sprintf("pid %d", os.Getpid()), host, "2026-11-23T10:00:00Z"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	l2, err := dirlock.Acquire(dir, since)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	defer l2.Release()
	b, _ := os.ReadFile(filepath.Join(dir, dirlock.FileName))
	var h dirlock.Holder
	if err := json.Unmarshal(b, &h); err != nil || h.PID != os.Getpid() {
		t.Fatalf("lock file holds %q", b)
	}
}

// A lock file left with garbage (or half written) still locks, and the error
// says it cannot name the holder.
func TestUnreadableHolder(t *testing.T) {
	dir := t.TempDir()
	l, err := dirlock.Acquire(dir, since)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if err := os.WriteFile(filepath.Join(dir, dirlock.FileName), []byte("{half"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = dirlock.Acquire(dir, since)
	if err == nil || !strings.Contains(err.Error(), "names no holder") {
		t.Fatalf("got %v", err)
	}
}

const childEnv = "SLUICE_DIRLOCK_CHILD"

// TestOtherProcess takes the lock in a child process and checks that this
// one is refused while the child lives, and admitted once it was killed.
func TestOtherProcess(t *testing.T) {
	if dir := os.Getenv(childEnv); dir != "" {
		if _, err := dirlock.Acquire(dir, since); err != nil {
			fmt.Println("ERR", err)
			os.Exit(1)
		}
		fmt.Println("LOCKED")
		time.Sleep(time.Minute) // killed by the parent
		os.Exit(0)
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestOtherProcess$")
	cmd.Env = append(os.Environ(), childEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, _ := out.Read(buf)
	if !strings.Contains(string(buf[:n]), "LOCKED") {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child said %q", buf[:n])
	}
	_, err = dirlock.Acquire(dir, since)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", cmd.Process.Pid)) {
		t.Errorf("while the child holds it: %v", err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	l, err := dirlock.Acquire(dir, since)
	if err != nil {
		t.Fatalf("after the holder was killed: %v", err)
	}
	l.Release()
}
