package jsonvalue_test

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"testing"

	"github.com/sluicehq/sluice/protocol/jsonvalue"
)

// same fails unless Append gives v exactly json.Marshal's bytes, or the
// same failure.
func same(t *testing.T, v any) {
	t.Helper()
	want, werr := json.Marshal(v)
	got, gerr := jsonvalue.Append(nil, v)
	if (werr != nil) != (gerr != nil) || werr == nil && !bytes.Equal(got, want) {
		t.Fatalf("Append(%#v) = %s, %v; json.Marshal: %s, %v", v, got, gerr, want, werr)
	}
	n, serr := jsonvalue.Size(v)
	if (serr != nil) != (werr != nil) || serr == nil && n != len(want) {
		t.Fatalf("Size(%#v) = %d, %v; json.Marshal: %d bytes, %v", v, n, serr, len(want), werr)
	}
}

func TestAppendAsMarshal(t *testing.T) {
	for _, v := range []any{
		nil, true, false, "", "plain", "<a href=\"x\">&amp;</a>", "\x00\x01\b\f\n\r\t\x1f\x7f\\", "\u2028\u2029é😀",
		"\xff\xfe bad \xc3", 0.0, math.Copysign(0, -1), 1.0, -1.5, 1e20, 1e21, 123456789e15, 1e-6, 1e-7, 5e-324,
		math.MaxFloat64, 3, int64(-9), json.Number("12.50"),
		// Whole floats about 2^53, where the integer form stops and the
		// shortest digits start: 2^53 + 2 is written as json.Marshal does.
		float64(1<<53 - 1), -float64(1<<53 - 1), float64(1 << 53), float64(1<<53 + 2), 1e15, -1e15, 4503599627370497.0, 123.0, -7.0,
		map[string]any{}, map[string]any(nil), []any{}, []any(nil),
		map[string]any{"b": 1.0, "a": []any{"x", nil, map[string]any{"<k>": false, "k": 2.5}}, "": "empty"},
		[]any{map[string]any{"one": 1.0}}, []string{"typed"}, map[string]int{"z": 1, "a": 2},
		struct {
			A string `json:"a"`
		}{"<"},
		math.NaN(), math.Inf(1), []any{1.0, math.Inf(-1)}, map[string]any{"c": make(chan int)},
	} {
		same(t, v)
	}
}

// A tree decoded from any JSON is encoded as json.Marshal encodes it.
func FuzzAppendAsMarshal(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e-7,"x<y"],"b":{"c":null,"d":true}}`, `"\u2028\ud800"`, `[1e21,-0,0.000001]`, `{"z":1,"a":2,"m":3}`, `[9007199254740991,9007199254740993,-9007199254740992,1e15,100]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// Without HTML escaping, as an Encoder with SetEscapeHTML(false).
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if enc.Encode(string(data)) == nil {
			if got := jsonvalue.AppendString(nil, string(data), false); !bytes.Equal(append(got, '\n'), buf.Bytes()) {
				t.Fatalf("AppendString(%q, false) = %s, want %s", data, got, buf.Bytes())
			}
			if n := jsonvalue.StringSize(string(data), false); n != buf.Len()-1 {
				t.Fatalf("StringSize(%q, false) = %d, want %d", data, n, buf.Len()-1)
			}
		}
		var v any
		if json.Unmarshal(data, &v) != nil {
			return
		}
		same(t, v)
	})
}

func BenchmarkAppend(b *testing.B) {
	items := make([]any, 20)
	for i := range items {
		items[i] = map[string]any{"name": "user", "status": "active", "points": float64(i * 13)}
	}
	v := map[string]any{"active": items, "ranked": items, "top": items, "totals": items[:2], "report": items}
	b.Run("jsonvalue", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = jsonvalue.Append(nil, v)
		}
	})
	b.Run("json.Marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = json.Marshal(v)
		}
	})
}

func BenchmarkAppendFloat(b *testing.B) {
	buf := make([]byte, 0, 64)
	for _, f := range []float64{120, 2.5} {
		b.Run(strconv.FormatFloat(f, 'g', -1, 64), func(b *testing.B) {
			for b.Loop() {
				buf, _ = jsonvalue.AppendFloat(buf[:0], f, 64)
			}
		})
	}
}
