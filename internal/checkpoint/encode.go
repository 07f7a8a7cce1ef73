package checkpoint

import (
	"encoding/json"

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

// encode appends to b json.Marshal(cp) but for the order of its keys: the data
// trees (workflow, input, results, outputs), which hold nearly all of a
// large checkpoint's bytes, are written by jsonvalue without reflection
// (json.Marshal's bytes for them, TestEncodeAsMarshal); the rest, small, by
// json.Marshal. Encoding the trees by reflection allocated about 30 bytes
// per byte of checkpoint (TestHeavyHeapPerResultByte in internal/gateway).
func encode(b []byte, cp *engine.Checkpoint) ([]byte, error) {
	rest, err := json.Marshal(withoutTrees{Checkpoint: cp})
	if err != nil {
		return nil, err
	}
	b = append(b, `{"workflow":`...)
	if b, err = jsonvalue.Append(b, cp.Workflow); err != nil {
		return nil, err
	}
	b = append(b, `,"results":`...)
	if b, err = jsonvalue.Append(b, cp.Results); err != nil {
		return nil, err
	}
	if cp.Input != nil {
		b = append(b, `,"input":`...)
		if b, err = jsonvalue.Append(b, cp.Input); err != nil {
			return nil, err
		}
	}
	if len(cp.Outputs) > 0 {
		b = append(b, `,"outputs":`...)
		if b, err = jsonvalue.Append(b, cp.Outputs); err != nil {
			return nil, err
		}
	}
	// rest is an object with at least version and executionId.
	return append(append(b, ','), rest[1:]...), nil
}
