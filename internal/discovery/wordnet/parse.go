package wordnet

import (
	"io"
	"strconv"
	"strings"

	"github.com/sluicehq/sluice/internal/discovery/wordtab"
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
	text := string(data)
	n := strings.Count(text, "\ns ")
	var (
		names    = wordtab.NewBuilder(n)
		forms    = wordtab.NewBuilder(0)
		pos      = make([]byte, 0, n)
		synWords = lists[int32]{start: make([]uint32, 1, n+1), items: make([]int32, 0, 2*n)}
		hyper    = lists[int32]{start: make([]uint32, 1, n+1), items: make([]int32, 0, n)}
		senses   = make([]sense, 0, 2*n) // of synWords.items, in their order
		// Irregular forms and derivations, as (key, value) pairs in the
		// order of the file, grouped by key at the end.
		excForms, excBases, derivFrom, derivTo []int32
	)
	ln := 0
	bad := func(format string, args ...any) error {
		e := fault.New(fault.Invalid, "wordnet line %d: "+format, append([]any{ln}, args...)...)
		e.Line = ln
		return e
	}
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
			if len(pos) == maxSynsets {
				return nil, bad("more than %d synsets", maxSynsets)
			}
			id := int32(len(pos))
			w0, h0 := len(synWords.items), len(hyper.items)
			for _, f := range fs[2:] {
				if f[0] == '@' {
					h, err := strconv.ParseInt(f[1:], 10, 32)
					if err != nil || h < 0 || h >= maxSynsets {
						return nil, bad("bad hypernym %q", f)
					}
					hyper.items = append(hyper.items, int32(h))
					continue
				}
				if len(hyper.items) > h0 {
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
				wid, _ := names.Add(w)
				synWords.items = append(synWords.items, wid)
				senses = append(senses, sense{synset: id, rank: uint16(rank)})
			}
			if len(synWords.items) == w0 {
				return nil, bad("synset without words")
			}
			pos = append(pos, fs[1][0])
			synWords.end()
			hyper.end()
		case "x":
			if len(fs) != 4 || !isPOS(fs[1]) || !isWord(fs[2]) || !isWord(fs[3]) {
				return nil, bad("want x n|v FORM BASE")
			}
			f, _ := forms.Add(fs[1] + fs[2])
			b, _ := names.Add(fs[3])
			excForms, excBases = append(excForms, f), append(excBases, b)
		case "d":
			if len(fs) != 3 || !isWord(fs[1]) || !isWord(fs[2]) || fs[1] == fs[2] {
				return nil, bad("want d WORD OTHERWORD")
			}
			a, _ := names.Add(fs[1])
			b, _ := names.Add(fs[2])
			derivFrom, derivTo = append(derivFrom, a, b), append(derivTo, b, a)
		default:
			return nil, bad("unknown record %q", fs[0])
		}
	}
	// Hyponyms are the hypernym links reversed: (hypernym, synset) pairs
	// in synset order, grouped by hypernym.
	var hypoOf, hypoIs []int32
	for i := range int32(len(pos)) {
		for _, h := range hyper.at(i) {
			if int(h) >= len(pos) || pos[h] != pos[i] || h == i {
				return nil, fault.New(fault.Invalid, "wordnet: synset %d has hypernym %d, not a different synset of its part of speech", i, h)
			}
			hypoOf, hypoIs = append(hypoOf, h), append(hypoIs, i)
		}
	}
	t := &Thesaurus{
		pos:      pos,
		synWords: synWords,
		hyper:    hyper,
		hypo:     groupBy(len(pos), hypoOf, hypoIs),
		senses:   groupBy(names.Len(), synWords.items, senses),
		deriv:    groupBy(names.Len(), derivFrom, derivTo),
		exc:      groupBy(forms.Len(), excForms, excBases),
	}
	for i := range int32(names.Len()) {
		if len(t.senses.at(i)) > 0 {
			t.nwords++
		}
	}
	t.names, t.forms = names.Table(), forms.Table()
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
