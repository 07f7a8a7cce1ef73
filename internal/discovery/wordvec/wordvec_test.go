package wordvec

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
)

// smallTable is a three-word table of three dimensions and its encoding.
var (
	smallWords = []string{"the", "invoice", "zebra"}
	smallVecs  = []int8{
		127, 0, -1,
		-128, 64, 3,
		5, -6, 7,
	}
)

func encodeSmall(t testing.TB) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Encode(&buf, 3, smallWords, smallVecs); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestRoundTrip(t *testing.T) {
	data := encodeSmall(t)
	if want := "wordvec1 3 3\nthe\ninvoice\nzebra\n"; !bytes.HasPrefix(data, []byte(want)) || len(data) != len(want)+9 {
		t.Fatalf("encoding %q", data)
	}
	tb, err := Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if tb.Len() != 3 || tb.Dims() != 3 {
		t.Fatalf("Len %d Dims %d, want 3 3", tb.Len(), tb.Dims())
	}
	for i, w := range smallWords {
		if got := tb.Word(int32(i)); got != w {
			t.Errorf("Word(%d) = %q, want %q", i, got, w)
		}
		j, ok := tb.Lookup(w)
		if !ok || j != int32(i) {
			t.Errorf("Lookup(%q) = %d, %v, want %d, true", w, j, ok, i)
		}
		if got, want := tb.Vector(int32(i)), smallVecs[3*i:3*i+3]; !slices.Equal(got, want) {
			t.Errorf("Vector(%d) = %v, want %v", i, got, want)
		}
	}
	if _, ok := tb.Lookup("giraffe"); ok {
		t.Error("Lookup of a word not in the table succeeded")
	}
	// Vector's slice is capped: appending to it cannot overwrite the next row.
	v := tb.Vector(0)
	_ = append(v, 99)
	if got := tb.Vector(1); got[0] != -128 {
		t.Errorf("append to Vector(0) changed Vector(1) to %v", got)
	}

	// An empty table is valid too.
	var buf bytes.Buffer
	if err := Encode(&buf, 5, nil, nil); err != nil {
		t.Fatal(err)
	}
	tb, err = Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if tb.Len() != 0 || tb.Dims() != 5 {
		t.Fatalf("empty table: Len %d Dims %d", tb.Len(), tb.Dims())
	}
}

func TestEncodeWrongLength(t *testing.T) {
	for _, n := range []int{0, 8, 10, 18} {
		var buf bytes.Buffer
		err := Encode(&buf, 3, smallWords, make([]int8, n))
		if err == nil {
			t.Errorf("%d vector bytes for 3 words × 3 dimensions: no error", n)
		} else if !strings.Contains(err.Error(), "need 9 vector bytes") {
			t.Errorf("%d vector bytes: error %q", n, err)
		}
		if buf.Len() != 0 {
			t.Errorf("%d vector bytes: wrote %q", n, buf.Bytes())
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	vec := func(n int) string { return strings.Repeat("\x01", n) }
	for _, c := range []struct {
		name, in string
		want     []string
	}{
		{"empty", "", []string{"line 1", "no newline"}},
		{"header without newline", "wordvec1 3 0", []string{"line 1", "no newline"}},
		{"bad magic", "wordvec2 3 1\nab\n" + vec(3), []string{"line 1", "wordvec1"}},
		{"two fields", "wordvec1 3\n", []string{"line 1", "DIMS WORDS"}},
		{"four fields", "wordvec1 3 1 1\nab\n" + vec(3), []string{"line 1", "DIMS WORDS"}},
		{"dims 0", "wordvec1 0 0\n", []string{"line 1", "dimensions", `"0"`}},
		{"dims over max", "wordvec1 1025 0\n", []string{"line 1", "dimensions", "1..1024", `"1025"`}},
		{"dims not a number", "wordvec1 x 0\n", []string{"line 1", "dimensions", `"x"`}},
		{"words negative", "wordvec1 3 -1\n", []string{"line 1", "words", `"-1"`}},
		{"words over max", "wordvec1 3 1048577\n", []string{"line 1", "words", "0..1048576", `"1048577"`}},
		{"header too long", "wordvec1 3 " + strings.Repeat("0", 200) + "1\n", []string{"line 1", "longer than 128"}},
		{"upper case word", "wordvec1 3 2\nab\nAb\n" + vec(6), []string{"line 3", `"Ab"`, "lower case"}},
		{"digit in word", "wordvec1 3 3\nab\ncd\ne5\n" + vec(9), []string{"line 4", `"e5"`}},
		{"empty word", "wordvec1 3 2\nab\n\n" + vec(6), []string{"line 3", `""`}},
		{"word with CR", "wordvec1 3 1\nab\r\n" + vec(3), []string{"line 2", `"ab\r"`}},
		{"word over 64 letters", "wordvec1 3 1\n" + strings.Repeat("a", 65) + "\n" + vec(3), []string{"line 2", "1..64"}},
		{"repeated word", "wordvec1 3 3\nab\ncd\nab\n" + vec(9), []string{"line 4", "repeated", `"ab"`}},
		{"word list without final newline", "wordvec1 3 2\nab\ncd", []string{"line 3", "word 2 of 2", "no newline"}},
		{"fewer words than header", "wordvec1 3 3\nab\ncd\n", []string{"line 4", "word 3 of 3", "no newline"}},
		{"line over limit", "wordvec1 3 1\n" + strings.Repeat("a", 1000) + "\n" + vec(3), []string{"line 2", "longer than 128"}},
		{"no vectors", "wordvec1 3 2\nab\ncd\n", []string{"vectors", "want 6 bytes", "got 0"}},
		{"too few vector bytes", "wordvec1 3 2\nab\ncd\n" + vec(5), []string{"vectors", "want 6 bytes", "got 5"}},
		{"extra byte", "wordvec1 3 2\nab\ncd\n" + vec(7), []string{"vectors", "data after"}},
		{"extra bytes, empty table", "wordvec1 3 0\nab\n", []string{"vectors", "data after"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tb, err := Decode(strings.NewReader(c.in))
			if err == nil {
				t.Fatalf("no error; table of %d words", tb.Len())
			}
			if tb != nil {
				t.Errorf("a table with the error %q", err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "wordvec: ") {
				t.Errorf("error %q lacks the package prefix", msg)
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
		})
	}
}

// A reader's own error, not the end of data, is passed on.
func TestDecodeReadError(t *testing.T) {
	_, err := Decode(errReader{})
	if err == nil || !strings.Contains(err.Error(), "line 1") || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("error %v", err)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errDisk }

var errDisk = errorString("disk on fire")

type errorString string

func (e errorString) Error() string { return string(e) }

// The generator's output, as embedded: its shape and that its vectors mean
// what an English embedding must.
func TestEmbedded(t *testing.T) {
	tb, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	if tb2, _ := Default(); tb2 != tb {
		t.Fatal("Default decoded twice")
	}
	if tb.Len() != 50000 || tb.Dims() != 100 {
		t.Fatalf("Len %d Dims %d, want 50000 100", tb.Len(), tb.Dims())
	}
	if w := tb.Word(0); w != "the" {
		t.Errorf("Word(0) = %q, want the most frequent word, \"the\"", w)
	}
	for i := range int32(tb.Len()) {
		w := tb.Word(i)
		if j, ok := tb.Lookup(w); !ok || j != i {
			t.Fatalf("Lookup(Word(%d) = %q) = %d, %v", i, w, j, ok)
		}
		if len(w) < 2 || !validWord(w) {
			t.Fatalf("Word(%d) = %q", i, w)
		}
	}
	// Unit vectors, quantized: the squared norm is Scale² give or take the
	// rounding of 100 components (measured: 0.981..1.018 of it).
	for i := int32(0); i < int32(tb.Len()); i += 97 {
		if got := float64(Dot(tb.Vector(i), tb.Vector(i))) / (Scale * Scale); got < 0.97 || got > 1.03 {
			t.Errorf("%q: squared norm %.4f × Scale²", tb.Word(i), got)
		}
		if s := tb.Similarity(i, i); s < 0.98 {
			t.Errorf("Similarity(%q, itself) = %.3f", tb.Word(i), s)
		}
	}

	sim := func(a, b string) float64 {
		t.Helper()
		i, ok1 := tb.Lookup(a)
		j, ok2 := tb.Lookup(b)
		if !ok1 || !ok2 {
			t.Fatalf("%q or %q not in the table", a, b)
		}
		if s, r := tb.Similarity(i, j), tb.Similarity(j, i); s != r {
			t.Fatalf("Similarity(%s, %s) = %.3f but the reverse is %.3f", a, b, s, r)
		}
		return tb.Similarity(i, j)
	}
	// Pairs chosen from the measured similarities (in parentheses) with wide
	// margins. "bill" is no neighbour of "invoice" (0.04): GloVe's corpus
	// is news, where a bill is legislation.
	for _, c := range []struct {
		a, b, unlike string
		margin       float64
	}{
		{"car", "vehicle", "banana", 0.3},      // 0.86 vs 0.15
		{"refund", "payment", "giraffe", 0.3},  // 0.71 vs -0.15
		{"invoice", "receipt", "giraffe", 0.2}, // 0.46 vs 0.08
		{"customer", "client", "volcano", 0.3}, // 0.61 vs -0.11
		{"delete", "remove", "banana", 0.3},    // 0.54 vs 0.03
		{"king", "queen", "carrot", 0.3},       // 0.76 vs 0.09
	} {
		if s, u := sim(c.a, c.b), sim(c.a, c.unlike); s < u+c.margin {
			t.Errorf("sim(%s, %s) = %.3f, not %.1f above sim(%s, %s) = %.3f", c.a, c.b, s, c.margin, c.a, c.unlike, u)
		}
	}
	if s := sim("email", "mail"); s < 0.5 { // 0.76
		t.Errorf("sim(email, mail) = %.3f", s)
	}
}

// Default is safe to call from many goroutines at once (run with -race).
func TestDefaultConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	tables := make([]*Table, 8)
	for g := range tables {
		wg.Go(func() {
			tb, err := Default()
			if err != nil {
				t.Error(err)
				return
			}
			i, _ := tb.Lookup("invoice")
			j, _ := tb.Lookup("receipt")
			_ = tb.Similarity(i, j)
			tables[g] = tb
		})
	}
	wg.Wait()
	for _, tb := range tables[1:] {
		if tb != tables[0] {
			t.Fatal("goroutines got different tables")
		}
	}
}

func TestDot(t *testing.T) {
	naive := func(a, b []int8) int32 {
		var s int32
		for i := range a {
			s += int32(a[i]) * int32(b[i])
		}
		return s
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 100, 101, 1024} {
		for range 20 {
			a, b := make([]int8, n), make([]int8, n+r.IntN(3)) // b may be longer
			for i := range a {
				a[i] = int8(r.IntN(256) - 128)
			}
			for i := range b {
				b[i] = int8(r.IntN(256) - 128)
			}
			if got, want := Dot(a, b), naive(a, b); got != want {
				t.Fatalf("length %d: Dot = %d, naive loop %d\na %v\nb %v", n, got, want, a, b)
			}
		}
		// The extremes: every product is 16384, the largest.
		a := slices.Repeat([]int8{-128}, n)
		if got, want := Dot(a, a), int32(16384*n); got != want {
			t.Fatalf("length %d of -128: Dot = %d, want %d", n, got, want)
		}
	}
}
