package checkpoint

import (
	"encoding/json"
	"slices"

	"github.com/sluicehq/sluice/internal/engine"
	"github.com/sluicehq/sluice/protocol/jsonvalue"
)

// withoutTrees is a checkpoint with its data trees hidden: the shallower
// fields hide the embedded ones of the same JSON name, and a nil pointer
// with omitempty writes nothing.
type withoutTrees struct {
	*engine.Checkpoint
	Workflow *struct{} `json:"workflow,omitempty"`
	Input    *struct{} `json:"input,omitempty"`
	Results  *struct{} `json:"results,omitempty"`
	Outputs  *struct{} `json:"outputs,omitempty"`
}

// encode appends to b json.Marshal(cp) but for the order of its keys and
// the results that are workflow values, which it writes as references
// (shared.go): the data trees (workflow, input, results, outputs), which
// hold nearly all of a large checkpoint's bytes, are written by jsonvalue
// without reflection (json.Marshal's bytes for them, TestEncodeAsMarshal);
// the rest, small, by json.Marshal. Encoding the trees by reflection
// allocated about 30 bytes per byte of checkpoint
// (TestHeavyHeapPerResultByte in internal/gateway). A large checkpoint's
// buffer is sized before it is written (jsonvalue.Size).
func encode(b []byte, cp *engine.Checkpoint) ([]byte, error) {
	rest, err := json.Marshal(withoutTrees{Checkpoint: cp})
	if err != nil {
		return nil, err
	}
	results, refs := splitResults(cp)
	trees := []struct {
		key  string
		tree any
		omit bool
	}{
		{`{"workflow":`, cp.Workflow, false},
		{`,"results":`, results, false},
		{`,"resultRefs":`, refs, refs == nil},
		{`,"input":`, cp.Input, cp.Input == nil},
		{`,"outputs":`, cp.Outputs, len(cp.Outputs) == 0},
	}
	if cp.DataBytes >= engine.PresizeAbove {
		n := len(rest)
		for _, t := range trees {
			if t.omit {
				continue
			}
			m, err := jsonvalue.Size(t.tree)
			if err != nil {
				return nil, err
			}
			n += len(t.key) + m
		}
		b = slices.Grow(b, n)
	}
	for _, t := range trees {
		if t.omit {
			continue
		}
		b = append(b, t.key...)
		if b, err = jsonvalue.Append(b, t.tree); err != nil {
			return nil, err
		}
	}
	// rest is an object with at least version and executionId.
	return append(append(b, ','), rest[1:]...), nil
}

// stored is a checkpoint as encode writes it.
type stored struct {
	engine.Checkpoint
	ResultRefs map[string]string `json:"resultRefs"`
}

// decode reads what encode wrote (or json.Marshal, as before references).
func decode(data []byte) (*engine.Checkpoint, error) {
	var s stored
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, err
	}
	if err := resolveRefs(&s.Checkpoint, s.ResultRefs); err != nil {
		return nil, err
	}
	return &s.Checkpoint, nil
}
