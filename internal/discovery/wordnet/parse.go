package wordnet

import (
	"io"
	"strconv"
	"strings"

	"github.com/sluicehq/sluice/internal/fault"
)

// Bounds on what Parse accepts: the embedded data is far below them, and
// they keep a corrupt or hostile file from taking unbounded memory.
const (
	maxBytes     = 16 << 20
	maxLineBytes = 64 << 10
	maxSynsets   = 1 << 20
	maxWordBytes = 64
	maxRank      = 999
)

// Parse reads the text format that ./gen writes (see the generator's
// documentation): "s POS WORD[/RANK]... [@N...]" synset lines, numbered from
// 0 in order, "x POS FORM BASE" irregular forms, "d WORD WORD" derivation
// pairs, and "#" comments. A bad line is an error naming its line.
func Parse(r io.Reader) (*Thesaurus, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxBytes+1))
	if err != nil {
		return nil, fault.New(fault.Invalid, "wordnet: reading: %v", err)
	}
	if len(data) > maxBytes {
		return nil, fault.New(fault.TooLarge, "wordnet: data over %d bytes", maxBytes)
	}
	// One string for the whole text: words are substrings of it, so the
	// thesaurus costs one allocation per synset rather than one per word.
	text := string(data)
	n := strings.Count(text, "\ns ")
	t := &Thesaurus{
		synsets: make([]synset, 0, n),
		senses:  make(map[string][]sense, n),
		exc:     map[string][]string{},
		deriv:   map[string][]string{},
	}
	ln := 0
	bad := func(format string, args ...any) error {
		e := fault.New(fault.Invalid, "wordnet line %d: "+format, append([]any{ln}, args...)...)
		e.Line = ln
		return e
	}
	// Words and hypernyms of all synsets share two backing arrays (three
	// full slice expressions keep one synset's appends off the next's).
	words := make([]string, 0, n*2)
	hypers := make([]int32, 0, n)
	var fs []string
	for rest := text; rest != ""; {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		ln++
		if len(line) > maxLineBytes {
			return nil, bad("longer than %d bytes", maxLineBytes)
		}
		if line == "" || line[0] == '#' {
			continue
		}
		fs = fields(fs[:0], line)
		if len(fs) == 0 {
			continue
		}
		switch fs[0] {
		case "s":
			if len(fs) < 3 || !isPOS(fs[1]) {
				return nil, bad("want s n|v WORD...")
			}
			if len(t.synsets) == maxSynsets {
				return nil, bad("more than %d synsets", maxSynsets)
			}
			id := int32(len(t.synsets))
			s := synset{pos: fs[1][0]}
			w0, h0 := len(words), len(hypers)
			for _, f := range fs[2:] {
				if f[0] == '@' {
					h, err := strconv.ParseInt(f[1:], 10, 32)
					if err != nil || h < 0 || h >= maxSynsets {
						return nil, bad("bad hypernym %q", f)
					}
					hypers = append(hypers, int32(h))
					continue
				}
				if len(hypers) > h0 {
					return nil, bad("word %q after the hypernyms", f)
				}
				w, rk, ok := strings.Cut(f, "/")
				rank := 1
				if ok {
					n, err := strconv.Atoi(rk)
					if err != nil || n < 2 || n > maxRank {
						return nil, bad("bad sense rank in %q", f)
					}
					rank = n
				}
				if !isWord(w) {
					return nil, bad("bad word %q", w)
				}
				words = append(words, w)
				t.senses[w] = append(t.senses[w], sense{synset: id, rank: uint16(rank)})
			}
			s.words = words[w0:len(words):len(words)]
			s.hyper = hypers[h0:len(hypers):len(hypers)]
			if len(s.words) == 0 {
				return nil, bad("synset without words")
			}
			t.synsets = append(t.synsets, s)
		case "x":
			if len(fs) != 4 || !isPOS(fs[1]) || !isWord(fs[2]) || !isWord(fs[3]) {
				return nil, bad("want x n|v FORM BASE")
			}
			k := fs[1] + fs[2]
			t.exc[k] = append(t.exc[k], fs[3])
		case "d":
			if len(fs) != 3 || !isWord(fs[1]) || !isWord(fs[2]) || fs[1] == fs[2] {
				return nil, bad("want d WORD OTHERWORD")
			}
			t.deriv[fs[1]] = append(t.deriv[fs[1]], fs[2])
			t.deriv[fs[2]] = append(t.deriv[fs[2]], fs[1])
		default:
			return nil, bad("unknown record %q", fs[0])
		}
	}
	nhypo := make([]int32, len(t.synsets))
	for i := range t.synsets {
		s := &t.synsets[i]
		for _, h := range s.hyper {
			if int(h) >= len(t.synsets) || t.synsets[h].pos != s.pos || h == int32(i) {
				return nil, fault.New(fault.Invalid, "wordnet: synset %d has hypernym %d, not a different synset of its part of speech", i, h)
			}
			nhypo[h]++
		}
	}
	hypos := make([]int32, len(hypers))
	off := 0
	for i := range t.synsets {
		t.synsets[i].hypo = hypos[off : off : off+int(nhypo[i])]
		off += int(nhypo[i])
	}
	for i := range t.synsets {
		for _, h := range t.synsets[i].hyper {
			t.synsets[h].hypo = append(t.synsets[h].hypo, int32(i))
		}
	}
	return t, nil
}

func isPOS(s string) bool { return s == "n" || s == "v" }

// isWord accepts what the generator keeps: lower case ASCII letters.
func isWord(s string) bool {
	if len(s) < 2 || len(s) > maxWordBytes {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

// fields splits line at spaces and tabs into dst, without allocating
// strings: the fields are substrings of line.
func fields(dst []string, line string) []string {
	for {
		line = strings.TrimLeft(line, " \t\r")
		if line == "" {
			return dst
		}
		i := strings.IndexAny(line, " \t\r")
		if i < 0 {
			return append(dst, line)
		}
		dst = append(dst, line[:i])
		line = line[i:]
	}
}
