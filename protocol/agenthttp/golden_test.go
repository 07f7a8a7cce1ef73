package agenthttp_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/protocol/agenthttp"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

// goldenCases maps a folder of testdata/ to what its inputs go through. Each
// input NAME.json (or NAME.txt) has its expected output in NAME.golden.json.
var goldenCases = map[string]func(t *testing.T, in []byte) (any, error){
	"response": func(t *testing.T, in []byte) (any, error) {
		r, err := agenthttp.DecodeResponse(in, agenthttp.Limits{})
		if err != nil {
			return nil, err
		}
		return map[string]any{"response": r, "failed": r.Failed()}, nil
	},
	"request": func(t *testing.T, in []byte) (any, error) {
		r, err := agenthttp.DecodeRequest(in, agenthttp.Limits{})
		if err != nil {
			return nil, err
		}
		again, err := agenthttp.EncodeRequest(*r)
		if err != nil {
			t.Fatalf("a decoded request does not encode: %v", err)
		}
		return json.RawMessage(again), nil
	},
	// Entries: the normalized registration (plain secrets as given, which
	// only EncodeRegistration writes) and whether any secret is in clear.
	"entry": func(t *testing.T, in []byte) (any, error) {
		e, err := agenthttp.DecodeEntry(in, agenthttp.Limits{})
		if err != nil {
			return nil, err
		}
		reg, err := agenthttp.EncodeRegistration(e)
		if err != nil {
			t.Fatal(err)
		}
		again, err := agenthttp.DecodeEntry(reg, agenthttp.Limits{})
		if err != nil {
			t.Fatalf("a registration does not decode again: %v", err)
		}
		if reg2, _ := agenthttp.EncodeRegistration(again); !bytes.Equal(reg, reg2) {
			t.Fatalf("registration round trip differs:\n%s\n%s", reg, reg2)
		}
		_, merr := json.Marshal(e)
		if e.HasPlainSecrets() != errors.Is(merr, agenthttp.ErrPlainSecret) {
			t.Fatalf("MarshalJSON and HasPlainSecrets disagree: %v %v", merr, e.HasPlainSecrets())
		}
		return map[string]any{"registration": json.RawMessage(reg), "plain_secrets": e.HasPlainSecrets()}, nil
	},
	"task_message": func(t *testing.T, in []byte) (any, error) {
		m, err := agenthttp.DecodeTaskMessage(in, agenthttp.Limits{})
		if err != nil {
			return nil, err
		}
		return roundTrip(t, m, func(b []byte) (any, error) { return agenthttp.DecodeTaskMessage(b, agenthttp.Limits{}) })
	},
	"result_message": func(t *testing.T, in []byte) (any, error) {
		m, err := agenthttp.DecodeResultMessage(in, agenthttp.Limits{})
		if err != nil {
			return nil, err
		}
		return roundTrip(t, m, func(b []byte) (any, error) { return agenthttp.DecodeResultMessage(b, agenthttp.Limits{}) })
	},
	"monitoring_message": func(t *testing.T, in []byte) (any, error) {
		m, err := agenthttp.DecodeMonitoringMessage(in, agenthttp.Limits{})
		if err != nil {
			return nil, err
		}
		return roundTrip(t, m, func(b []byte) (any, error) { return agenthttp.DecodeMonitoringMessage(b, agenthttp.Limits{}) })
	},
	"error_message": func(t *testing.T, in []byte) (any, error) {
		return map[string]string{"message": agenthttp.ErrorMessage(in, 0)}, nil
	},
}

// roundTrip encodes m, decodes the result and checks it encodes the same.
func roundTrip(t *testing.T, m any, decode func([]byte) (any, error)) (any, error) {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	again, err := decode(b)
	if err != nil {
		t.Fatalf("an encoded message does not decode: %v\n%s", err, b)
	}
	b2, _ := json.Marshal(again)
	if !bytes.Equal(b, b2) {
		t.Fatalf("round trip differs:\n%s\n%s", b, b2)
	}
	return json.RawMessage(b), nil
}

func TestGolden(t *testing.T) {
	for dir, run := range goldenCases {
		inputs, _ := filepath.Glob(filepath.Join("testdata", dir, "*"))
		n := 0
		for _, in := range inputs {
			if strings.HasSuffix(in, ".golden.json") {
				continue
			}
			n++
			name := strings.TrimSuffix(in, filepath.Ext(in))
			t.Run(dir+"/"+filepath.Base(name), func(t *testing.T) {
				data, err := os.ReadFile(in)
				if err != nil {
					t.Fatal(err)
				}
				out, err := run(t, data)
				var got any = out
				if err != nil {
					var ae *agenthttp.Error
					if !errors.As(err, &ae) {
						t.Fatalf("error %T %v is not an *agenthttp.Error", err, err)
					}
					if ae.Offset < 0 || ae.Offset > len(data) {
						t.Fatalf("offset %d outside the input of %d bytes", ae.Offset, len(data))
					}
					got = map[string]any{"error": ae, "text": ae.Error()}
				}
				checkGolden(t, name+".golden.json", got)
			})
		}
		if n == 0 {
			t.Errorf("no inputs in testdata/%s", dir)
		}
	}
}

// checkGolden compares got, as indented JSON, with the golden file (or
// writes it with -update).
func checkGolden(t *testing.T, golden string, got any) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(got); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("%s differs (run with -update and review the diff)\ngot:\n%s\nwant:\n%s", golden, buf.Bytes(), want)
	}
}
