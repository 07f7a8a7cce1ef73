package gateway_test

import (
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/agent"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

// What the upgrade fixtures' generator (upgrade_fixture_test.go) and the
// upgrade test (upgrade_test.go) share: where the fixtures are, the
// test-only secrets they were made with, and the manifest naming what is in
// them.

// upgradeFixtures is the folder of the fixtures (README.md there says what
// they are and how they were made).
const upgradeFixtures = "testdata/upgrade"

// upgradeAdminKey is the admin key the fixtures were made with: a test-only
// value, given to the server through its configuration so that the upgrade
// test can use it (a key the server makes is shown once and stored hashed).
const upgradeAdminKey = "test-only-upgrade-fixture-admin-key-0123456789"

// The vault credential of the fixtures: a test-only value.
const (
	upgradeCredentialID    = "upgrade-api"
	upgradeCredentialValue = "test-only-upgrade-fixture-credential-7f3a"
)

// upgradeManifest names what a fixture holds: the account and its key, and
// the runs finished and in flight when the server making it was killed.
type upgradeManifest struct {
	// MadeBy is the commit of the code that made the fixture (with
	// "+changes" when its worktree had uncommitted changes).
	MadeBy    string `json:"made_by"`
	MadeAt    string `json:"made_at"`
	AccountID string `json:"account_id"`
	// APIKey is the account's key: a test-only key made for the fixture.
	APIKey string `json:"api_key"`

	FinishedExecution     string `json:"finished_execution"`
	FinishedCapabilityRun string `json:"finished_capability_run"`
	FinishedAgentWorkflow string `json:"finished_agent_workflow"`

	// ParkedExecution waits in a long Wait (a durable timer) before doubling
	// [3, 4].
	ParkedExecution string `json:"parked_execution"`
	// WaitingCapabilityRun waits for the decision of its prompt task.
	WaitingCapabilityRun string `json:"waiting_capability_run"`
	// MidwayAgentWorkflow has its first step ("a", agent extract) recorded
	// and its second ("b", agent stall) in flight.
	MidwayAgentWorkflow string `json:"midway_agent_workflow"`
}

func readUpgradeManifest(t *testing.T, name string) upgradeManifest {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(upgradeFixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	var m upgradeManifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return m
}

func writeUpgradeManifest(t *testing.T, name string, m upgradeManifest) {
	t.Helper()
	b, _ := json.MarshalIndent(m, "", "  ")
	if err := os.WriteFile(filepath.Join(upgradeFixtures, name), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// copyTree copies the files of from into to (created), skipping the names in
// skip. Every file and folder is made its owner's only, as sluice makes its
// data directory and insists on for its key files: a checkout keeps no
// modes but the executable bit.
func copyTree(t *testing.T, from, to string, skip ...string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if slices.Contains(skip, d.Name()) {
			return nil
		}
		rel, _ := filepath.Rel(from, path)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o700)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// recordingAgent is a mock agent (internal/agent's MockAgent: it echoes its
// input) that records the task id of every task it is sent.
type recordingAgent struct {
	URL   string
	mu    sync.Mutex
	tasks []string
}

func newRecordingAgent(t *testing.T, name string) *recordingAgent {
	t.Helper()
	return newRecordingAgentDelay(t, name, 0)
}

// newRecordingAgentDelay is a recordingAgent that answers each task after
// delay.
func newRecordingAgentDelay(t *testing.T, name string, delay time.Duration) *recordingAgent {
	t.Helper()
	mock, err := agent.NewMockAgent(agent.MockOptions{Name: name, Delay: delay})
	if err != nil {
		t.Fatal(err)
	}
	ra := &recordingAgent{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			if req, err := agenthttp.DecodeRequest(body, agenthttp.Limits{}); err == nil {
				ra.mu.Lock()
				ra.tasks = append(ra.tasks, req.TaskID)
				ra.mu.Unlock()
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		mock.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	ra.URL = srv.URL
	return ra
}

// count is how many tasks the agent was sent.
func (a *recordingAgent) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.tasks)
}

// counts is how many times each task id was sent.
func (a *recordingAgent) counts() map[string]int {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := map[string]int{}
	for _, id := range a.tasks {
		out[id]++
	}
	return out
}

// taskSet is the task ids sent so far.
func (a *recordingAgent) taskSet() map[string]bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := map[string]bool{}
	for _, id := range a.tasks {
		out[id] = true
	}
	return out
}

// called reports whether the agent was sent task id.
func (a *recordingAgent) called(id string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Contains(a.tasks, id)
}
