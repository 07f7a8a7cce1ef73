package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/sluicehq/sluice/internal/op"
)

// cacheKey identifies a pure step's output: its operation name, its config and
// the values at the paths it reads. It is false when a read path is missing (the
// step then runs and reports that) or a value cannot be encoded. Pure steps take
// no credentials, so no secret enters the key; the key is a hash in any case.
func cacheKey(st *Step, d op.Data) (string, bool) {
	h := sha256.New()
	writeField(h, []byte(st.Name))
	writeField(h, compactJSON(st.Config))
	if r, ok := st.Op.(op.Reader); ok {
		enc := json.NewEncoder(h) // map keys are sorted: the encoding is canonical
		for _, p := range r.Reads() {
			v, err := d.Get(p)
			if err != nil {
				return "", false
			}
			writeField(h, []byte(p.String()))
			if err := enc.Encode(v); err != nil {
				return "", false
			}
		}
	}
	return "engine/" + st.Name + "/" + hex.EncodeToString(h.Sum(nil)), true
}

// writeField writes b length-prefixed, so fields cannot run into each other.
func writeField(h interface{ Write([]byte) (int, error) }, b []byte) {
	n := len(b)
	h.Write([]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)})
	h.Write(b)
}

// compactJSON removes insignificant space, so formatting does not change a key.
func compactJSON(raw json.RawMessage) []byte {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw
	}
	return b.Bytes()
}
