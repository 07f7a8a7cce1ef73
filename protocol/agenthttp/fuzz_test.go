package agenthttp_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/protocol/agenthttp"
)

// seed adds every input of testdata/dir.
func seed(f *testing.F, dirs ...string) {
	f.Helper()
	for _, dir := range dirs {
		files, _ := filepath.Glob(filepath.Join("testdata", dir, "*"))
		for _, file := range files {
			if strings.HasSuffix(file, ".golden.json") {
				continue
			}
			b, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
}

// checkErr: every failure is an *agenthttp.Error with a message and an
// offset inside the input.
func checkErr(t *testing.T, data []byte, err error) {
	t.Helper()
	var e *agenthttp.Error
	if !errors.As(err, &e) || e.Message == "" || e.Offset < 0 || e.Offset > len(data) {
		t.Fatalf("bad error %#v for %q", err, data)
	}
}

func FuzzDecodeResponse(f *testing.F) {
	seed(f, "response")
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := agenthttp.DecodeResponse(data, agenthttp.Limits{MaxDepth: 16})
		if err != nil {
			checkErr(t, data, err)
			return
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatalf("a decoded response does not encode: %v", err)
		}
		again, err := agenthttp.DecodeResponse(b, agenthttp.Limits{})
		if err != nil || again.TaskID != r.TaskID || again.Failed() != r.Failed() {
			t.Fatalf("round trip: %v %+v %+v", err, r, again)
		}
		_ = agenthttp.ErrorMessage(data, 64)
	})
}

func FuzzDecodeRequest(f *testing.F) {
	seed(f, "request")
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := agenthttp.DecodeRequest(data, agenthttp.Limits{MaxDepth: 16})
		if err != nil {
			checkErr(t, data, err)
			return
		}
		if _, err := agenthttp.EncodeRequest(*r); err != nil {
			t.Fatalf("a decoded request does not encode: %v", err)
		}
	})
}

func FuzzDecodeEntry(f *testing.F) {
	seed(f, "entry")
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := agenthttp.DecodeEntry(data, agenthttp.Limits{MaxDepth: 16})
		if err != nil {
			checkErr(t, data, err)
			return
		}
		if err := e.Validate(); err != nil {
			t.Fatalf("a decoded entry does not validate: %v", err)
		}
		reg, err := agenthttp.EncodeRegistration(e)
		if err != nil {
			t.Fatal(err)
		}
		again, err := agenthttp.DecodeEntry(reg, agenthttp.Limits{})
		if err != nil {
			t.Fatalf("a registration does not decode again: %v\n%s", err, reg)
		}
		if reg2, _ := agenthttp.EncodeRegistration(again); string(reg2) != string(reg) {
			t.Fatalf("round trip differs:\n%s\n%s", reg, reg2)
		}
		// Marshalling refuses exactly the entries with a secret in clear.
		_, merr := json.Marshal(e)
		if e.HasPlainSecrets() != (merr != nil) {
			t.Fatalf("MarshalJSON %v, HasPlainSecrets %v", merr, e.HasPlainSecrets())
		}
	})
}

func FuzzDecodeMessages(f *testing.F) {
	seed(f, "task_message", "result_message", "monitoring_message")
	// sluice's extensions: a task continuing a remote A2A task that asks
	// for updates; a failure with details.
	f.Add([]byte(`{"run_id":"r","task_id":"t","agent_name":"a","input_data":{"text":"blue"},"correlation_id":"c","reply_to":"x",` +
		`"remote_task_id":"rt-1","context_id":"ctx-1","updates":true,"timestamp":"2026-03-28T12:00:00+00:00"}`))
	f.Add([]byte(`{"run_id":"r","task_id":"t","status":"FAILURE","output_data":null,"correlation_id":"c","error_message":"asks",` +
		`"error_code":"upstream","error_details":{"inputRequired":{"remoteTaskId":"rt-1"}},"timestamp":"2026-03-28T12:00:00+00:00"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		lim := agenthttp.Limits{MaxDepth: 16}
		if m, err := agenthttp.DecodeTaskMessage(data, lim); err != nil {
			checkErr(t, data, err)
		} else if b, err := json.Marshal(m); err != nil {
			t.Fatal(err)
		} else if again, err := agenthttp.DecodeTaskMessage(b, lim); err != nil {
			t.Fatalf("task round trip: %v\n%s", err, b)
		} else if again.RemoteTaskID != m.RemoteTaskID || again.ContextID != m.ContextID || again.Updates != m.Updates {
			t.Fatalf("task round trip lost an extension: %+v %+v", m, again)
		}
		if m, err := agenthttp.DecodeResultMessage(data, lim); err != nil {
			checkErr(t, data, err)
		} else if b, err := json.Marshal(m); err != nil {
			t.Fatal(err)
		} else if again, err := agenthttp.DecodeResultMessage(b, lim); err != nil {
			t.Fatalf("result round trip: %v\n%s", err, b)
		} else if string(again.ErrorDetails) != string(m.ErrorDetails) {
			t.Fatalf("result round trip lost error_details: %s %s", m.ErrorDetails, again.ErrorDetails)
		}
		if m, err := agenthttp.DecodeMonitoringMessage(data, lim); err != nil {
			checkErr(t, data, err)
		} else if b, err := json.Marshal(m); err != nil {
			t.Fatal(err)
		} else if _, err := agenthttp.DecodeMonitoringMessage(b, lim); err != nil {
			t.Fatalf("monitoring round trip: %v\n%s", err, b)
		}
	})
}

func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"0", "120", "Sat, 28 Mar 2026 12:00:30 GMT", "-1", "1e9", "Monday"} {
		f.Add(s)
	}
	now := time.Date(2026, 3, 28, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		d, ok := agenthttp.ParseRetryAfter(s, now)
		if d < 0 || d > agenthttp.MaxRetryAfter || !ok && d != 0 {
			t.Fatalf("%q -> %v %v", s, d, ok)
		}
	})
}

func FuzzDecodeUpdateMessage(f *testing.F) {
	f.Add([]byte(`{"run_id":"r","task_id":"t","seq":1,"delta_kind":"text","delta":"hello"}`))
	f.Add([]byte(`{"run_id":"r","task_id":"t","seq":2,"delta_kind":"custom","delta":{"type":"status","state":"TASK_STATE_WORKING"}}`))
	f.Add([]byte(`{"run_id":"r","task_id":"t","seq":0,"delta_kind":"text","delta":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := agenthttp.DecodeUpdateMessage(data, agenthttp.Limits{MaxDepth: 16})
		if err != nil {
			checkErr(t, data, err)
			return
		}
		if !agenthttp.IsUpdateMessage(data) {
			t.Fatalf("a decoded update is not told from a result: %q", data)
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("a decoded update does not encode: %v", err)
		}
		again, err := agenthttp.DecodeUpdateMessage(b, agenthttp.Limits{})
		if err != nil || again.Seq != m.Seq || again.DeltaKind != m.DeltaKind || string(again.Delta) != string(m.Delta) {
			t.Fatalf("round trip: %v %+v %+v", err, m, again)
		}
	})
}
