package wire_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/queue/wire"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

// decoders maps a folder of testdata/ to its decoder. Each input NAME.json has
// its expected output in NAME.golden.json: the message encoded again, or the
// error.
var decoders = map[string]func([]byte) (any, error){
	"task":       func(b []byte) (any, error) { return wire.DecodeTask(b) },
	"result":     func(b []byte) (any, error) { return wire.DecodeResult(b) },
	"monitoring": func(b []byte) (any, error) { return wire.DecodeMonitoring(b) },
}

func TestGolden(t *testing.T) {
	for dir, decode := range decoders {
		inputs, _ := filepath.Glob(filepath.Join("testdata", dir, "*.json"))
		n := 0
		for _, in := range inputs {
			if strings.HasSuffix(in, ".golden.json") {
				continue
			}
			n++
			t.Run(dir+"/"+filepath.Base(in), func(t *testing.T) {
				data, err := os.ReadFile(in)
				if err != nil {
					t.Fatal(err)
				}
				var out any
				msg, err := decode(data)
				if err != nil {
					var we *wire.Error
					if !errors.As(err, &we) {
						t.Fatalf("error %v is not a *wire.Error", err)
					}
					out = map[string]string{"error": err.Error()}
				} else {
					out = map[string]any{"message": msg}
					assertRoundTrip(t, decode, msg)
				}
				compareGolden(t, strings.TrimSuffix(in, ".json")+".golden.json", out)
			})
		}
		if n == 0 {
			t.Errorf("testdata/%s has no inputs", dir)
		}
	}
}

// assertRoundTrip: what a decoder accepted encodes to bytes that decode to
// the same message and encode to the same bytes.
func assertRoundTrip(t *testing.T, decode func([]byte) (any, error), msg any) {
	t.Helper()
	b1, err := json.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	again, err := decode(b1)
	if err != nil {
		t.Fatalf("encoded %s does not decode: %v", b1, err)
	}
	b2, err := json.Marshal(again)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b1, b2) {
		t.Fatalf("round trip changed the message:\n%s\n%s", b1, b2)
	}
}

func compareGolden(t *testing.T, name string, v any) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(name)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("%s differs:\ngot:\n%s\nwant:\n%s", name, buf.Bytes(), want)
	}
}

func TestGoldenFilesHaveInputs(t *testing.T) {
	outs, _ := filepath.Glob(filepath.Join("testdata", "*", "*.golden.json"))
	for _, out := range outs {
		if _, err := os.Stat(strings.TrimSuffix(out, ".golden.json") + ".json"); err != nil {
			t.Errorf("%s has no input", out)
		}
	}
}

// Go values encode in the wire's field order and timestamp form.
func TestEncode(t *testing.T) {
	ts := time.Date(2026, 3, 28, 12, 0, 0, 0, time.FixedZone("CET", 3600))
	msg := "agent answered 500"
	for _, c := range []struct {
		v    any
		want string
	}{
		{wire.Task{RunID: "r1", TaskID: "t1", AgentName: "research", InputData: json.RawMessage(`{"topic":"AI"}`), CorrelationID: "c1", Timestamp: ts},
			`{"run_id":"r1","task_id":"t1","agent_name":"research","input_data":{"topic":"AI"},"correlation_id":"c1","timestamp":"2026-03-28T11:00:00+00:00"}`},
		{wire.Result{RunID: "r1", TaskID: "t1", Status: wire.Failure, CorrelationID: "c1", ErrorMessage: &msg, Timestamp: ts.Add(1500 * time.Microsecond)},
			`{"run_id":"r1","task_id":"t1","status":"FAILURE","output_data":null,"correlation_id":"c1","error_message":"agent answered 500","timestamp":"2026-03-28T11:00:00.001500+00:00"}`},
		{wire.Monitoring{RunID: "r1", StepID: "s1", StepName: "research", Status: wire.Running, Timestamp: ts},
			`{"run_id":"r1","step_id":"s1","step_name":"research","status":"RUNNING","timestamp":"2026-03-28T11:00:00+00:00","metadata":null}`},
	} {
		got, err := json.Marshal(c.v)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
}

func TestKeys(t *testing.T) {
	if k := (wire.Task{TaskID: "t1", CorrelationID: "c1"}).Key(); k != "t1" {
		t.Errorf("task key %q", k)
	}
	if k := (wire.Result{TaskID: "t1", CorrelationID: "c1"}).Key(); k != "c1" {
		t.Errorf("result key %q", k)
	}
	if k := (wire.Monitoring{RunID: "r", StepID: "s", Status: wire.Completed}).Key(); k != "r/s/COMPLETED" {
		t.Errorf("monitoring key %q", k)
	}
}
