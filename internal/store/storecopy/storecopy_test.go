package storecopy_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/retention"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/postgres"
	"github.com/sluicehq/sluice/internal/store/postgres/pgtest"
	"github.com/sluicehq/sluice/internal/store/sqlite"
	"github.com/sluicehq/sluice/internal/store/storecopy"
	"github.com/sluicehq/sluice/protocol/a2e"
)

var ctx = context.Background()

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// fill writes one of everything into a single-machine installation at dir:
// the store and the file storage.
func fill(t *testing.T, dir string, s *sqlite.DB) {
	t.Helper()
	for _, id := range []string{"alice", "bob", "zed"} {
		_, err := s.CreateAccount(ctx, store.Account{ID: id, Name: "Account " + id, Limits: json.RawMessage(`{"requests_per_minute":5}`),
			Permissions: policy.Permissions{Operations: []string{"ApiCall"}, CapabilityLevel: policy.LevelBasic}})
		must(t, err)
	}
	must(t, s.DisableAccount(ctx, "zed"))
	exp := time.Now().Add(time.Hour)
	for i := range 3 {
		_, err := s.AddAPIKey(ctx, store.APIKey{ID: fmt.Sprintf("key%d", i), AccountID: "alice", Hash: []byte(fmt.Sprintf("hash-%d", i)), Prefix: "slk_ab", ExpiresAt: &exp})
		must(t, err)
	}
	must(t, s.RevokeAPIKey(ctx, "alice", "key1"))
	must(t, s.MarkAPIKeysUsed(ctx, map[string]time.Time{"key2": time.Now()}))
	_, err := s.PutCredential(ctx, store.Credential{ID: "stripe", Type: "bearer", Description: "Stripe", MasterKeyID: "k1",
		Nonce: []byte{1, 2, 3}, Ciphertext: []byte{0, 255, 7, 8}})
	must(t, err)
	for i := range 250 {
		// Kinds the document does not say: a copy that derived them again
		// would get them wrong.
		e := store.Execution{ID: fmt.Sprintf("exec-%03d", i), AccountID: []string{"alice", "bob"}[i%2], Kind: store.Kinds[i%3], Digest: "sha256:d",
			Document: []byte(`{"type":"beginExecution"}`), Input: json.RawMessage(`{"n":` + fmt.Sprint(i) + `}`), Status: store.StatusQueued,
			Async: i%3 == 0, SessionID: "s", BudgetMs: 1000}
		if i%5 == 0 {
			e.ClientID = fmt.Sprintf("client-%d", i)
		}
		_, _, err := s.CreateExecution(ctx, e)
		must(t, err)
		if i%2 == 0 {
			must(t, s.SaveCheckpoint(ctx, e.ID, json.RawMessage(`{"step":`+fmt.Sprint(i)+`}`)))
			_, err := s.AppendEvents(ctx, e.ID, json.RawMessage(`{"a":1}`), json.RawMessage(`{"b":2}`))
			must(t, err)
		}
		if i%4 == 0 {
			must(t, s.UpdateExecution(ctx, e.AccountID, e.ID, store.ExecutionUpdate{Status: store.StatusSuccess, Result: json.RawMessage(`{"ok":true}`)}))
		}
	}
	var recs []store.AuditRecord
	for i := range 1200 {
		recs = append(recs, store.AuditRecord{Time: time.Now(), RequestID: fmt.Sprint("r", i), AccountID: "alice", Method: "workflow.execute",
			Decision: store.DecisionAllow, LatencyMs: int64(i), Status: "succeeded", Details: json.RawMessage(`{"i":` + fmt.Sprint(i) + `}`)})
	}
	must(t, s.AppendAudit(ctx, recs))
	must(t, s.PutKV(ctx, "alice", "reports/latest", json.RawMessage(`{"total": 3}`)))
	_, err = s.AddMCPServer(ctx, store.MCPServer{AccountID: "bob", Name: "files", URL: "https://mcp.example.com/mcp"})
	must(t, err)
	hook, _, err := s.PutPushConfig(ctx, store.PushConfig{AccountID: "alice", TaskID: "awf-1", ID: "hook", URL: "https://hooks.example.com/a2a", TokenRef: "a2a-push.x.token"})
	must(t, err)
	// An admin's retention policy goes with the data.
	_, err = s.ClaimSetting(ctx, retention.SettingName, []byte(`{"runs":"10d"}`))
	must(t, err)
	if ok, err := s.ClaimPushConfig(ctx, hook.Seq, 0, time.Now(), time.Now().Add(time.Minute)); err != nil || !ok {
		t.Fatalf("claim: %v %v", ok, err)
	}
	for _, v := range []string{"1.0.0", "1.1.0"} {
		body := "id: Weather\nversion: " + v + "\n"
		sum := sha256.Sum256([]byte(body))
		_, _, err := s.PublishCapability(ctx, store.CapabilityVersion{Namespace: "core/weather", ID: "Weather", Version: v,
			Checksum: "sha256:" + hex.EncodeToString(sum[:]), Type: "atomic", Level: "basic", AuditStatus: "audited",
			Description: "weather", Document: []byte(body), Format: store.CapabilityYAML, PublishedBy: "alice"})
		must(t, err)
	}
	_, err = s.PutKnowledgeBase(ctx, store.KnowledgeBase{Name: "Guide", Kind: store.KnowledgeText, Format: "markdown", Document: []byte("# Refunds\n"), CreatedBy: "admin"})
	must(t, err)
	_, err = s.PutKnowledgeBase(ctx, store.KnowledgeBase{Name: "crm", Kind: store.KnowledgeText, Format: "markdown", Document: []byte("# CRM\n"), CreatedBy: "admin"})
	must(t, err)
	_, _, err = s.PutAgent(ctx, store.Agent{Name: "echo", Entry: json.RawMessage(`{"name":"echo","url":"https://echo.example.com"}`)})
	must(t, err)
	n, err := s.AddDiscoveryUsage(ctx, []store.DiscoveryUsage{{Kind: "tool", EntryID: "op.Weather", Term: "forecast", Account: "alice"},
		{Kind: "tool", EntryID: "op.Weather", Term: "forecast", Account: "bob"}, {Kind: "api", EntryID: "crm", Term: "über", Account: "bob"}})
	must(t, err)
	if n != 3 {
		t.Fatalf("discovery usage: %d rows added, want 3", n)
	}
	must(t, s.PutValue(ctx, store.Value{Area: a2e.StorageSession, AccountID: "bob", Scope: "sess", Key: "k", Value: json.RawMessage(`1`), ExpiresAt: time.Now().Add(time.Hour)}))
	hour := time.Now().UTC().Truncate(time.Hour)
	must(t, s.SaveRateCounters(ctx, time.Now(), []store.RateCounter{{AccountID: "alice", Window: "requests_per_hour", Start: hour, End: hour.Add(time.Hour), Count: 3}}))

	files := filepath.Join(dir, "files")
	write := func(rel, content string) {
		p := filepath.Join(files, filepath.FromSlash(rel))
		must(t, os.MkdirAll(filepath.Dir(p), 0o700))
		must(t, os.WriteFile(p, []byte(content), 0o600))
	}
	write("alice/reports/2026-01", `{"sum": 12}`)
	write("alice/top", `"x"`)
	write("bob/data", `[1,2,3]`)
	write("alice/reports/.tmp-0123", `{"half`) // an interrupted write: left
}

func openPair(t *testing.T) (string, *sqlite.DB, *postgres.DB) {
	t.Helper()
	dsn := pgtest.NewDatabase(t)
	dir := t.TempDir()
	src, err := sqlite.Open(ctx, sqlite.Options{Dir: dir})
	must(t, err)
	t.Cleanup(func() { src.Close() })
	dst, err := postgres.Open(ctx, postgres.Options{DSN: dsn})
	must(t, err)
	t.Cleanup(func() { dst.Close() })
	return dir, src, dst
}

func TestCopyVerifiesAndIsSafeToRepeat(t *testing.T) {
	dir, src, dst := openPair(t)
	fill(t, dir, src)
	o := storecopy.Options{FilesDir: filepath.Join(dir, "files"), BatchRows: 37}
	rep, err := storecopy.Copy(ctx, src, dst, o)
	must(t, err)
	if !rep.OK() {
		t.Fatalf("first copy: %+v", rep)
	}
	copied := map[string]int64{}
	for _, tr := range append(rep.Tables, rep.Files) {
		copied[tr.Table] = tr.Copied
		if tr.Source != tr.Target || (tr.SourceSum != "derived" && len(tr.SourceSum) != 64) {
			t.Errorf("%s: %+v", tr.Table, tr)
		}
	}
	if copied["executions"] != 250 || copied["audit"] != 1200 || copied["events"] != 250 || copied["discovery_usage"] != 3 || copied["files (file storage)"] != 3 {
		t.Fatalf("copied %v", copied)
	}
	if v, ok, err := dst.GetSetting(ctx, retention.SettingName); err != nil || !ok || string(v) != `{"runs":"10d"}` || fmt.Sprint(rep.Settings) != "[retention.policy]" {
		t.Fatalf("the retention policy in the target: %s %v %v; copied settings %v", v, ok, err, rep.Settings)
	}

	// Read back through the PostgreSQL store: every field as it was.
	for id, acct := range map[string]string{"exec-000": "alice", "exec-005": "bob", "exec-249": "bob", "exec-248": "alice"} {
		a, err := src.GetExecution(ctx, acct, id)
		must(t, err)
		b, err := dst.GetExecution(ctx, acct, id)
		must(t, err)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%s:\n sqlite   %+v\n postgres %+v", id, a, b)
		}
	}
	for _, kind := range store.Kinds {
		for _, acct := range []string{"alice", "bob"} {
			a, _, err := src.ListExecutions(ctx, acct, store.ExecutionQuery{Kinds: []string{kind}, Page: store.Page{Limit: store.MaxPageSize}})
			must(t, err)
			b, _, err := dst.ListExecutions(ctx, acct, store.ExecutionQuery{Kinds: []string{kind}, Page: store.Page{Limit: store.MaxPageSize}})
			must(t, err)
			if len(a) == 0 || !reflect.DeepEqual(a, b) {
				t.Fatalf("%s's executions of kind %s: sqlite %d, postgres %d", acct, kind, len(a), len(b))
			}
		}
	}
	k, acct, err := dst.FindAPIKey(ctx, []byte("hash-1"))
	must(t, err)
	if k.RevokedAt == nil || acct.ID != "alice" {
		t.Fatalf("key: %+v %+v", k, acct)
	}
	if z, err := dst.GetAccount(ctx, "zed"); err != nil || !z.Disabled {
		t.Fatalf("zed: %+v %v", z, err)
	}
	c, err := dst.GetCredential(ctx, "stripe")
	must(t, err)
	if !bytes.Equal(c.Ciphertext, []byte{0, 255, 7, 8}) || c.MasterKeyID != "k1" {
		t.Fatalf("credential: %+v", c)
	}
	if v, ok, err := dst.GetValue(ctx, a2e.StorageFile, "alice", "", "reports/2026-01"); err != nil || !ok || string(v) != `{"sum": 12}` {
		t.Fatalf("file value: %s %v %v", v, ok, err)
	}
	if _, ok, _ := dst.GetValue(ctx, a2e.StorageFile, "alice", "", "reports/.tmp-0123"); ok {
		t.Fatal("a temporary file was copied")
	}
	a, err := src.DiscoveryUsageCounts(ctx, "", "")
	must(t, err)
	b, err := dst.DiscoveryUsageCounts(ctx, "", "")
	must(t, err)
	if len(a) != 2 || !reflect.DeepEqual(a, b) {
		t.Fatalf("discovery usage:\n sqlite   %+v\n postgres %+v", a, b)
	}
	// The derived values are rebuilt: the next event and execution follow on.
	seq, err := dst.AppendEvents(ctx, "exec-000", json.RawMessage(`{"c":3}`))
	must(t, err)
	if seq != 3 {
		t.Fatalf("next event of a copied execution: %d, want 3", seq)
	}
	_, _, err = dst.CreateExecution(ctx, store.Execution{ID: "after", AccountID: "alice", Digest: "d", Document: []byte("{}"), Status: store.StatusQueued})
	must(t, err)
	list, _, err := dst.ListExecutions(ctx, "alice", store.ExecutionQuery{Page: store.Page{Limit: 2}})
	must(t, err)
	if list[0].ID != "after" || list[1].ID != "exec-248" {
		t.Fatalf("newest first after the copy: %s, %s", list[0].ID, list[1].ID)
	}
	must(t, dst.PutValue(ctx, store.Value{Area: a2e.StorageFile, AccountID: "alice", Key: "new", Value: json.RawMessage(`2`)}))
	// A kind changed in the target is a difference (exec-003 is an A2E one).
	if _, err := dst.Pool().Exec(ctx, `UPDATE executions SET kind = 'agent_workflow' WHERE id = 'exec-003'`); err != nil {
		t.Fatal(err)
	}

	// Again: nothing more is copied; the rows written since are reported,
	// never overwritten.
	rep, err = storecopy.Copy(ctx, src, dst, o)
	must(t, err)
	for _, tr := range append(rep.Tables, rep.Files) {
		if tr.Copied != 0 {
			t.Errorf("second run copied %d rows of %s", tr.Copied, tr.Table)
		}
	}
	if rep.OK() {
		t.Fatal("rows added to the target since the copy verify")
	}
	extra := map[string]int64{}
	for _, tr := range append(rep.Tables, rep.Files) {
		extra[tr.Table] = tr.Extra + tr.Differ
	}
	if extra["executions"] != 2 || extra["events"] != 1 || extra["files (file storage)"] != 1 || extra["accounts"] != 0 {
		t.Fatalf("differences: %v", extra)
	}
	e, err := dst.GetExecution(ctx, "alice", "exec-000")
	must(t, err)
	if e.Status != store.StatusSuccess {
		t.Fatal("a row was changed")
	}
}

// Files that cannot become stored values are named, and the copy says it
// did not verify.
func TestCopyReportsFileProblems(t *testing.T) {
	dir, src, dst := openPair(t)
	_, err := src.CreateAccount(ctx, store.Account{ID: "alice", Name: "a"})
	must(t, err)
	files := filepath.Join(dir, "files")
	must(t, os.MkdirAll(filepath.Join(files, "alice"), 0o700))
	must(t, os.MkdirAll(filepath.Join(files, "ghost"), 0o700))
	must(t, os.WriteFile(filepath.Join(files, "alice", "broken"), []byte(`{"half`), 0o600))
	must(t, os.WriteFile(filepath.Join(files, "alice", "good"), []byte(`true`), 0o600))
	rep, err := storecopy.Copy(ctx, src, dst, storecopy.Options{FilesDir: files})
	must(t, err)
	if rep.OK() || rep.Files.Copied != 1 || len(rep.Files.Problems) != 2 {
		t.Fatalf("files: %+v", rep.Files)
	}
	all := strings.Join(rep.Files.Problems, "\n")
	if !strings.Contains(all, "alice/broken: not a JSON value") || !strings.Contains(all, `no account "ghost"`) {
		t.Fatalf("problems: %s", all)
	}
}
