package op_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/datamodel"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
)

var waitStart = time.Date(2025, 12, 17, 10, 0, 0, 0, time.UTC)

// waitRC is a run context that records what the step saves.
func waitRC(clk clock.Clock, state string, saved *[]string) *op.RunContext {
	rc := dtRC(datamodel.New(nil))
	rc.Clock = clk
	if state != "" {
		rc.State = json.RawMessage(state)
	}
	rc.Save = func(s json.RawMessage) error {
		*saved = append(*saved, string(s))
		return nil
	}
	return rc
}

func TestWait(t *testing.T) {
	tests := []struct {
		name      string
		duration  int
		state     string
		wantSleep []time.Duration
		wantSaved []string
	}{
		{"sleeps the duration after saving the wake-up time", 1500, "",
			[]time.Duration{1500 * time.Millisecond}, []string{`{"wakeAt":"2025-12-17T10:00:01.5Z"}`}},
		{"zero does nothing", 0, "", nil, nil},
		{"resumes with the remainder", 60000, `{"wakeAt":"2025-12-17T10:00:20Z"}`,
			[]time.Duration{20 * time.Second}, nil},
		{"already past the wake-up time", 60000, `{"wakeAt":"2025-12-17T09:59:00Z"}`, nil, nil},
		{"a far wake-up time is capped at the duration", 1000, `{"wakeAt":"2025-12-18T10:00:00Z"}`,
			[]time.Duration{time.Second}, nil},
		{"unreadable state starts again", 2000, `"garbage"`,
			[]time.Duration{2 * time.Second}, []string{`{"wakeAt":"2025-12-17T10:00:02Z"}`}},
		{"longest wait", 600000, "",
			[]time.Duration{10 * time.Minute}, []string{`{"wakeAt":"2025-12-17T10:10:00Z"}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clock.NewFake(waitStart)
			var saved []string
			o := dtBuild(t, op.WaitOp, `{"duration":`+itoa(tt.duration)+`}`)
			out, err := o.Run(context.Background(), waitRC(clk, tt.state, &saved))
			if err != nil || out != nil {
				t.Fatalf("got %v, %v; want nil, nil", out, err)
			}
			if got := clk.Sleeps(); !reflect.DeepEqual(got, tt.wantSleep) {
				t.Errorf("slept %v, want %v", got, tt.wantSleep)
			}
			if !reflect.DeepEqual(saved, tt.wantSaved) {
				t.Errorf("saved %v, want %v", saved, tt.wantSaved)
			}
		})
	}
}

func TestWaitCancelled(t *testing.T) {
	o := dtBuild(t, op.WaitOp, `{"duration":1000}`)
	var saved []string

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := o.Run(ctx, waitRC(clock.NewFake(waitStart), "", &saved))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v", err)
	}
	if len(saved) != 1 {
		t.Errorf("the wake-up time must be saved before sleeping, saved %v", saved)
	}

	ctx, cancel = context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	_, err = o.Run(ctx, waitRC(clock.NewFake(waitStart), "", &saved))
	fe, ok := fault.As(err)
	if !ok || fe.SpecType() != fault.TimeoutError || fe.Kind != fault.Timeout {
		t.Errorf("deadline: want TimeoutError, got %v", err)
	}
}

func TestWaitSaveFails(t *testing.T) {
	o := dtBuild(t, op.WaitOp, `{"duration":1000}`)
	clk := clock.NewFake(waitStart)
	rc := dtRC(dtModel(t, "", nil))
	rc.Clock = clk
	rc.Save = func(json.RawMessage) error { return errors.New("disk full") }
	_, err := o.Run(context.Background(), rc)
	fe, ok := fault.As(err)
	if !ok || !fe.Retryable || len(clk.Sleeps()) != 0 {
		t.Errorf("want a retryable fault and no sleep, got %v (slept %v)", err, clk.Sleeps())
	}
}

func TestWaitUsesDepsClock(t *testing.T) {
	d := dtDeps()
	clk := clock.NewFake(waitStart)
	d.Clock = clk
	o, err := op.WaitOp.New([]byte(`{"duration":250}`), d)
	if err != nil {
		t.Fatal(err)
	}
	rc := dtRC(dtModel(t, "", nil))
	rc.Clock = nil
	if _, err := o.Run(context.Background(), rc); err != nil {
		t.Fatal(err)
	}
	if got := clk.Sleeps(); len(got) != 1 || got[0] != 250*time.Millisecond {
		t.Errorf("slept %v on the deps clock", got)
	}
}

func TestWaitConfigErrors(t *testing.T) {
	const base = "operation.Wait"
	tests := []struct {
		name, cfg string
		maxWait   time.Duration
	}{
		{"negative", `{"duration":-1}`, 0},
		{"over the spec's ceiling", `{"duration":600001}`, 0},
		{"over the account limit", `{"duration":5000}`, time.Second},
		{"fraction", `{"duration":1.5}`, 0},
		{"string", `{"duration":"1s"}`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := dtDeps()
			d.Limits.MaxWait = tt.maxWait
			dtConfigError(t, op.WaitOp, d, tt.cfg, base+".duration")
		})
	}
	dtConfigError(t, op.WaitOp, nil, `{"duration":1,"until":"x"}`, base+".until")
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
