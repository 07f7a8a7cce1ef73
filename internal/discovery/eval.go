package discovery

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Splits of a labeled query set.
const (
	SplitTrain   = "train"
	SplitHeldout = "heldout"
	// SplitFresh is a set written after the tuning, by someone who saw
	// neither the ranker nor the other queries: how far the ranking
	// generalises to wording nobody tuned on. Never tuned on either.
	SplitFresh = "fresh"
)

// maxLabeledLine bounds one line of a labeled query file.
const maxLabeledLine = 64 << 10

// Labeled is one line of a labeled query file: a question as an agent
// would ask it and the IDs of the entries that answer it.
type Labeled struct {
	Query    string   `json:"query"`
	Relevant []string `json:"relevant"`
	// Split is train, heldout or fresh. A line without one gets SplitOf(Query).
	Split string `json:"split,omitempty"`
	Line  int    `json:"-"`
}

// SplitOf is the fixed rule for a query without an explicit split: the
// first 8 bytes of SHA-256 of its text, read as a fraction of 2^64, below
// 0.3 is held out. The shipped dataset writes its split on every line.
func SplitOf(query string) string {
	h := sha256.Sum256([]byte(query))
	if float64(binary.BigEndian.Uint64(h[:8])) < 0.3*float64(1<<63)*2 {
		return SplitHeldout
	}
	return SplitTrain
}

// ReadLabeled reads a labeled query file: one JSON object per line
// ({"query": "...", "relevant": ["NAME.operationId", ...], "split": ...});
// blank lines are skipped. Errors name the line.
func ReadLabeled(r io.Reader) ([]Labeled, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxLabeledLine)
	var out []Labeled
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.DisallowUnknownFields()
		var l Labeled
		if err := dec.Decode(&l); err != nil {
			return nil, fmt.Errorf("line %d: %v", line, err)
		}
		if dec.More() {
			return nil, fmt.Errorf("line %d: more than one JSON value", line)
		}
		l.Line = line
		switch {
		case strings.TrimSpace(l.Query) == "":
			return nil, fmt.Errorf("line %d: field query is empty", line)
		case len(l.Relevant) == 0:
			return nil, fmt.Errorf("line %d: field relevant is empty", line)
		case slices.Contains(l.Relevant, ""):
			return nil, fmt.Errorf("line %d: field relevant holds an empty id", line)
		}
		switch l.Split {
		case "":
			l.Split = SplitOf(l.Query)
		case SplitTrain, SplitHeldout, SplitFresh:
		default:
			return nil, fmt.Errorf("line %d: field split is %q; want train, heldout or fresh", line, l.Split)
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("line %d: longer than %d bytes", line+1, maxLabeledLine)
		}
		return nil, err
	}
	return out, nil
}

// LoadCatalog reads every OpenAPI document (*.json, *.yaml, *.yml) directly
// in dir; an API's name is its file name without the extension.
func LoadCatalog(dir string) ([]Entry, error) {
	files, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("catalog: %v", err)
	}
	var out []Entry
	n := 0
	for _, f := range files {
		ext := filepath.Ext(f.Name())
		if f.IsDir() || ext != ".json" && ext != ".yaml" && ext != ".yml" {
			continue
		}
		path := filepath.Join(dir, f.Name())
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("catalog: %v", err)
		}
		es, err := FromOpenAPI(strings.TrimSuffix(f.Name(), ext), data)
		if err != nil {
			return nil, fmt.Errorf("catalog %s: %v", path, err)
		}
		out = append(out, es...)
		n++
	}
	if n == 0 {
		return nil, fmt.Errorf("catalog: no OpenAPI document (*.json, *.yaml, *.yml) in %s", dir)
	}
	return out, nil
}
