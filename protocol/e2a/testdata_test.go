package e2a_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/protocol/e2a"
)

// goldenInputs returns the inputs of testdata/dir (every NAME.json that is not
// a NAME.golden.json) by path.
func goldenInputs(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	paths, _ := filepath.Glob(filepath.Join("testdata", dir, "*.json"))
	for _, path := range paths {
		if strings.HasSuffix(path, ".golden.json") {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		out[path] = data
	}
	return out
}

// a2aFrameConverter picks the converter for an a2a_to_frame input by the
// second part of its name: NAME.task, .message, .result or .stream.
func a2aFrameConverter(path string) func(map[string]any) (*e2a.Response, error) {
	return map[string]func(map[string]any) (*e2a.Response, error){
		"task": e2a.FrameFromA2ATask, "message": e2a.FrameFromA2AMessage,
		"result": e2a.FrameFromA2AResult, "stream": e2a.FrameFromA2AStream,
	}[strings.TrimPrefix(filepath.Ext(strings.TrimSuffix(path, ".json")), ".")]
}
