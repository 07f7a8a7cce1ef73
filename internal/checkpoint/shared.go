package checkpoint

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/sluicehq/sluice/internal/engine"
)

// A result is most often the very value its operation wrote to the
// workflow tree (`outputPath: /workflow/users` keeps the output there and in
// results), so a checkpoint holding both held a large output twice: twice
// the bytes to encode, to write and to keep while writing. A result that is
// in memory a top-level value of the workflow tree (a non-empty map or list,
// the same one, not an equal copy) is stored as a reference instead: the
// stored "resultRefs" names, by operation, the workflow key that holds its
// result, and Load puts the value back in results, shared as the engine
// shared it.

// identity is a map's or list's place in memory and its length.
type identity struct {
	at    unsafe.Pointer
	len   int
	isMap bool
}

func identityOf(v any) (identity, bool) {
	switch x := v.(type) {
	case map[string]any:
		if len(x) > 0 {
			return identity{reflect.ValueOf(x).UnsafePointer(), len(x), true}, true
		}
	case []any:
		if len(x) > 0 {
			return identity{unsafe.Pointer(unsafe.SliceData(x)), len(x), false}, true
		}
	}
	return identity{}, false
}

// splitResults returns cp's results that are not top-level values of its
// workflow tree, and the references of those that are (nil when none).
func splitResults(cp *engine.Checkpoint) (map[string]any, map[string]any) {
	if len(cp.Results) == 0 || len(cp.Workflow) == 0 {
		return cp.Results, nil
	}
	var held map[identity]string
	for k, v := range cp.Workflow {
		if id, ok := identityOf(v); ok {
			if held == nil {
				held = make(map[identity]string, len(cp.Workflow))
			}
			held[id] = k
		}
	}
	if held == nil {
		return cp.Results, nil
	}
	var refs map[string]any
	for op, r := range cp.Results {
		if id, ok := identityOf(r); ok {
			if k, ok := held[id]; ok {
				if refs == nil {
					refs = map[string]any{}
				}
				refs[op] = k
			}
		}
	}
	if refs == nil {
		return cp.Results, nil
	}
	rest := make(map[string]any, len(cp.Results)-len(refs))
	for op, r := range cp.Results {
		if _, ok := refs[op]; !ok {
			rest[op] = r
		}
	}
	return rest, refs
}

// resolveRefs puts the referenced workflow values back in cp's results.
func resolveRefs(cp *engine.Checkpoint, refs map[string]string) error {
	if len(refs) == 0 {
		return nil
	}
	if cp.Results == nil {
		cp.Results = make(map[string]any, len(refs))
	}
	for op, k := range refs {
		v, ok := cp.Workflow[k]
		if !ok {
			return fmt.Errorf("the result of %q refers to workflow value %q, which the checkpoint does not hold", op, k)
		}
		if _, dup := cp.Results[op]; dup {
			return fmt.Errorf("the result of %q is stored both as a value and as a reference", op)
		}
		cp.Results[op] = v
	}
	return nil
}
