package agent

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestPromptOf(t *testing.T) {
	for in, want := range map[string]string{
		`{"text":"hi"}`: `[{"type":"text","text":"hi"}]`,
		`{"prompt":[{"type":"text","text":"a"},{"type":"resource_link","name":"f","uri":"file:///f"}],"text":"a","sessionId":"s"}`: `[{"type":"text","text":"a"},{"type":"resource_link","name":"f","uri":"file:///f"}]`,
		`{"prompt":[],"text":"a"}`:     `[{"type":"text","text":"{\"prompt\":[],\"text\":\"a\"}"}]`,
		`{"prompt":[{"type":"nope"}]}`: `[{"type":"text","text":"{\"prompt\":[{\"type\":\"nope\"}]}"}]`,
		`{"prompt":"x","text":"b"}`:    `[{"type":"text","text":"{\"prompt\":\"x\",\"text\":\"b\"}"}]`,
		`{"goal":"ship"}`:              `[{"type":"text","text":"{\"goal\":\"ship\"}"}]`,
	} {
		b, err := json.Marshal(promptOf(json.RawMessage(in)))
		var got, w any
		_ = json.Unmarshal(b, &got)
		_ = json.Unmarshal([]byte(want), &w)
		if err != nil || !reflect.DeepEqual(got, w) {
			t.Errorf("%s: %s %v, want %s", in, b, err, want)
		}
	}
}

// FuzzPromptOf: any input makes a prompt of at least one block that
// encodes, and nothing panics.
func FuzzPromptOf(f *testing.F) {
	f.Add([]byte(`{"text":"hi"}`))
	f.Add([]byte(`{"prompt":[{"type":"text","text":"a"},{"type":"image","data":"", "mimeType":"image/png"}],"text":"a"}`))
	f.Add([]byte(`{"prompt":[{}]}`))
	f.Add([]byte(`[1,2]`))
	f.Fuzz(func(t *testing.T, in []byte) {
		blocks := promptOf(in)
		if len(blocks) == 0 {
			t.Fatal("no block")
		}
		if _, err := json.Marshal(blocks); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
	})
}
