package wordvec

import (
	"bytes"
	"slices"
	"testing"
)

// FuzzDecode: Decode never panics, and a table it accepts survives being
// encoded and decoded again unchanged.
func FuzzDecode(f *testing.F) {
	valid := encodeSmall(f)
	f.Add(valid)
	f.Add([]byte{})
	f.Add([]byte("wordvec1 3 3\n"))
	f.Add(valid[:len(valid)-4])
	f.Add([]byte("wordvec1 2 0\n"))
	f.Add([]byte("wordvec1 1 2\nab\nab\n\x01\x02"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tb, err := Decode(bytes.NewReader(data))
		if err != nil {
			if tb != nil {
				t.Fatalf("a table with the error %v", err)
			}
			return
		}
		enc := encodeTable(t, tb)
		tb2, err := Decode(bytes.NewReader(enc))
		if err != nil {
			t.Fatalf("re-encoded table: %v\n%q", err, enc)
		}
		if tb2.Dims() != tb.Dims() || tb2.Len() != tb.Len() {
			t.Fatalf("re-decoded %d words × %d, was %d × %d", tb2.Len(), tb2.Dims(), tb.Len(), tb.Dims())
		}
		for i := range int32(tb.Len()) {
			if tb2.Word(i) != tb.Word(i) || !slices.Equal(tb2.Vector(i), tb.Vector(i)) {
				t.Fatalf("word %d: %q %v, was %q %v", i, tb2.Word(i), tb2.Vector(i), tb.Word(i), tb.Vector(i))
			}
			if j, ok := tb2.Lookup(tb.Word(i)); !ok || j != i {
				t.Fatalf("Lookup(%q) = %d, %v, want %d", tb.Word(i), j, ok, i)
			}
		}
		if enc2 := encodeTable(t, tb2); !bytes.Equal(enc2, enc) {
			t.Fatalf("encoding not stable:\n%q\n%q", enc, enc2)
		}
	})
}

// encodeTable encodes tb through the exported API.
func encodeTable(t *testing.T, tb *Table) []byte {
	t.Helper()
	words := make([]string, tb.Len())
	var vecs []int8
	for i := range words {
		words[i] = tb.Word(int32(i))
		vecs = append(vecs, tb.Vector(int32(i))...)
	}
	var buf bytes.Buffer
	if err := Encode(&buf, tb.Dims(), words, vecs); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
