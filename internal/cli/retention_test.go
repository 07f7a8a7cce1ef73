package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sluicehq/sluice/client"
	"github.com/sluicehq/sluice/internal/retention"
	"github.com/sluicehq/sluice/internal/store/sqlite"
)

func retentionCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runSub(context.Background(), newRetentionCmd, "", &out, &errb, append([]string{"retention"}, args...)...)
	return code, out.String(), errb.String()
}

// TestRetentionSet: the flags become the PATCH body ("default" is null,
// --reset both), with the admin key; no change at all is a usage error.
func TestRetentionSet(t *testing.T) {
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization")+" "+string(b))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"policy":{"runs":"7d","audit":"30d"},"configured":{"runs":"30d","audit":"30d"},"set_by_admin":["runs"]}`))
	}))
	t.Cleanup(srv.Close)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"set", "--runs", "7d"}, `PATCH /api/v1/admin/retention Bearer k {"runs":"7d"}`},
		{[]string{"set", "--runs", "default", "--audit", "90d"}, `PATCH /api/v1/admin/retention Bearer k {"audit":"90d","runs":null}`},
		{[]string{"set", "--reset"}, `PATCH /api/v1/admin/retention Bearer k {"audit":null,"runs":null}`},
		{[]string{"prune"}, `POST /api/v1/admin/retention/prune Bearer k `},
		{[]string{"stats"}, `GET /api/v1/admin/storage Bearer k `},
	} {
		bodies = nil
		code, out, errs := retentionCmd(t, append(c.args, "--url", srv.URL, "--admin-key", "k", "-o", "json")...)
		if code != ExitOK || len(bodies) != 1 || bodies[0] != c.want {
			t.Fatalf("%v: exit %d, sent %q, want %q\n%s%s", c.args, code, bodies, c.want, out, errs)
		}
	}
	if code, _, errs := retentionCmd(t, "set", "--url", srv.URL, "--admin-key", "k"); code != ExitInvalid || !strings.Contains(errs, "--runs") {
		t.Fatalf("set without a change: exit %d %s", code, errs)
	}
}

// TestRetentionCompact: compact rewrites a stopped server's database and
// refuses a directory that is no data directory.
func TestRetentionCompact(t *testing.T) {
	dir := t.TempDir()
	db, err := sqlite.Open(context.Background(), sqlite.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	code, out, errs := retentionCmd(t, "compact", "--data-dir", dir)
	var got map[string]any
	if code != ExitOK || json.Unmarshal([]byte(out), &got) != nil || got["bytes_after"] == nil {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	if code, _, errs := retentionCmd(t, "compact", "--data-dir", t.TempDir()); code != ExitFailed || !strings.Contains(errs, "sluice.db") {
		t.Fatalf("an empty directory: exit %d %s", code, errs)
	}
}

// The client's copy of a pass report has every field the server's has, so
// `sluice retention prune` prints all of it.
func TestClientRetentionReportHasTheServersFields(t *testing.T) {
	keys := func(v any) []string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		out := slices.Collect(maps.Keys(m))
		slices.Sort(out)
		return out
	}
	server, mirror := keys(retention.Report{Error: "x"}), keys(client.RetentionReport{Error: "x"})
	if !slices.Equal(server, mirror) {
		t.Fatalf("server report fields %v, client's %v", server, mirror)
	}
}
