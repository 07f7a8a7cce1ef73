package gateway_test

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sluicehq/sluice/client"
)

// TestKill9EveryKindOfRun is TestKill9LosesNothing for the kinds of run the
// run service took over: agent workflow runs, whose steps call an HTTP
// agent, are started, the server is killed with SIGKILL while many are
// mid-way, and after a restart on the same data directory every accepted
// run ends once, successfully, with each step's output, and one final frame
// at the end of a gapless stream. A step recorded before the kill is not
// sent to its agent again.
func TestKill9EveryKindOfRun(t *testing.T) {
	skipUnlessHeavy(t)
	dir := t.TempDir()
	admin := "admin-" + strings.Repeat("k", 40)
	slow := newRecordingAgentDelay(t, "slow", 150*time.Millisecond)
	cmd, url := startChild(t, dir, admin)
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	ctx := context.Background()
	ac := client.New(url, admin, nil)
	name := "kinds"
	_, nk, err := ac.CreateAccount(ctx, client.AccountSpec{Name: &name,
		Permissions: &client.Permissions{Operations: []string{"*"}, Agents: []string{"*"}},
		Limits:      map[string]int{"max_concurrent_executions": 100, "requests_per_minute": -1, "requests_per_hour": -1, "requests_per_day": -1}})
	if err != nil {
		t.Fatal(err)
	}
	key := nk.APIKey
	if err := ac.Do(ctx, "POST", "/api/v1/admin/agents", map[string]any{"name": "slow", "url": slow.URL}, nil); err != nil {
		t.Fatal(err)
	}

	const n = 40
	wf := `{"workflow_id":"kill","name":"kill","version":"1.0.0","start_step":"a","steps":{
	 "a":{"id":"a","agent_name":"slow","next_step":"b","input_mapping":{"i":"${workflow.input.i}"}},
	 "b":{"id":"b","agent_name":"slow","next_step":"c","input_mapping":{"from":"${a.output.echo.i}"}},
	 "c":{"id":"c","agent_name":"slow","next_step":null,"input_mapping":{"last":"${b.output.echo.from}"}}}}`
	c := client.New(url, key, nil)
	var ids []string
	for i := range n {
		var out struct {
			RunID string `json:"run_id"`
		}
		if err := c.Do(ctx, "POST", "/api/v1/agent-workflows/runs", map[string]any{"workflow": wf, "input": map[string]any{"i": i},
			"client_id": fmt.Sprintf("kill-%d", i)}, &out); err != nil {
			t.Fatalf("run %d not accepted: %v", i, err)
		}
		ids = append(ids, out.RunID)
	}
	waitFor(t, time.Minute, "some runs to be mid-way", func() bool { return slow.count() >= n })
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_, _ = cmd.Process.Wait()
	before := slow.taskSet()

	cmd2, url2 := startChild(t, dir, admin)
	defer func() { _ = cmd2.Process.Kill(); _ = cmd2.Wait() }()
	c2 := client.New(url2, key, nil)
	deadline := time.Now().Add(3 * time.Minute)
	for i, id := range ids {
		for {
			var run struct {
				Status  string                    `json:"status"`
				Outputs map[string]map[string]any `json:"outputs"`
			}
			if err := c2.Do(ctx, "GET", "/api/v1/agent-workflows/runs/"+id, nil, &run); err != nil {
				t.Fatalf("accepted run %s: %v", id, err)
			}
			if run.Status == "success" {
				echo, _ := run.Outputs["c"]["echo"].(map[string]any)
				if fmt.Sprint(echo["last"]) != fmt.Sprint(i) {
					t.Fatalf("run %s: outputs %v", id, run.Outputs)
				}
				break
			}
			if run.Status != "queued" && run.Status != "running" || time.Now().After(deadline) {
				t.Fatalf("run %s ended %s (or never ended)", id, run.Status)
			}
			time.Sleep(100 * time.Millisecond)
		}
		checkOneFinalFrame(t, url2, key, id)
	}
	// A step whose output was recorded before the kill is not called again.
	// A run has one step in flight at a time, so at most one of its task
	// ids reaches the agent twice (the kill came while that call was in
	// flight); a run resumed from the start would repeat every step it had
	// done. midway counts the runs the kill found past their first step and
	// not done: the test means something only when there are some.
	counts, midway := slow.counts(), 0
	for _, id := range ids {
		repeated, called := 0, 0
		for _, step := range []string{"a", "b", "c"} {
			task := id + "/" + step
			if before[task] {
				called++
			}
			switch n := counts[task]; {
			case n > 2:
				t.Fatalf("task %s sent to the agent %d times (before the kill: %v)", task, n, before[task])
			case n == 2:
				repeated++
			}
		}
		if repeated > 1 {
			t.Fatalf("run %s: %d steps sent to the agent twice; only the one in flight at the kill may be", id, repeated)
		}
		if called >= 2 && called < 3 {
			midway++
		}
	}
	if midway == 0 {
		t.Fatalf("the kill found no run mid-way (%d tasks called before it)", len(before))
	}
	t.Logf("%d agent workflow runs, %d mid-way at the kill; all ended once after the restart, no recorded step called again", n, midway)
}
