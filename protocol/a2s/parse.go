package a2s

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Format is the syntax of a document.
type Format int

// The formats. FormatAuto reads a document that starts with '{' as JSON and
// anything else as YAML.
const (
	FormatAuto Format = iota
	FormatYAML
	FormatJSON
)

func (f Format) String() string {
	switch f {
	case FormatYAML:
		return "YAML"
	case FormatJSON:
		return "JSON"
	}
	return "auto"
}

// FormatOf picks the format from a file name: .json is JSON, .yaml and .yml
// are YAML, anything else is FormatAuto.
func FormatOf(name string) Format {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".json":
		return FormatJSON
	case ".yaml", ".yml":
		return FormatYAML
	}
	return FormatAuto
}

// Options say how to read a document.
type Options struct {
	// File names the document in positions ("" prints as <input>).
	File   string
	Format Format
	Limits Limits
}

// Rule IDs of the problems that stop a document from being read (the others
// are in rules.go).
const (
	RuleSyntax = "A2S001"
	RuleLimit  = "A2S002"
)

// ParseTree reads a document into its tree. It never panics; any failure is an
// *Error with the position of the problem.
func ParseTree(data []byte, opt Options) (*Node, error) {
	lim := opt.Limits.withDefaults()
	if len(data) > lim.MaxBytes {
		return nil, &Error{Rule: RuleLimit, File: opt.File, Pos: Pos{1, 1},
			Message: fmt.Sprintf("document is %d bytes, more than the limit of %d", len(data), lim.MaxBytes)}
	}
	format := opt.Format
	if format == FormatAuto {
		format = sniff(data)
	}
	// Both formats are UTF-8 only (RFC 8259 §8.1; YAML streams here are
	// UTF-8): refusing other bytes early keeps every string of the tree valid,
	// which the canonical form needs.
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(data) {
		off := invalidUTF8(data)
		return nil, &Error{Rule: RuleSyntax, File: opt.File, Pos: offsetPos(data, off),
			Message: fmt.Sprintf("%s: byte 0x%02x at offset %d is not valid UTF-8", format, data[off], off)}
	}
	var (
		n   *Node
		err *Error
	)
	if format == FormatJSON {
		n, err = parseJSON(data, lim)
	} else {
		n, err = parseYAML(data, lim)
	}
	if err != nil {
		err.File = opt.File
		return nil, err
	}
	return n, nil
}

// Parse reads and normalizes a document. The error is an *Error when the
// document cannot be read; problems of content are reported by Lint.
func Parse(data []byte, opt Options) (*Document, error) {
	tree, err := ParseTree(data, opt)
	if err != nil {
		return nil, err
	}
	return Normalize(tree, opt.File), nil
}

func sniff(data []byte) Format {
	t := bytes.TrimLeft(data, " \t\r\n\xef\xbb\xbf")
	if len(t) > 0 && t[0] == '{' {
		return FormatJSON
	}
	return FormatYAML
}

func invalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return 0
}

// offsetPos turns a byte offset into a line and a column counted in
// characters.
func offsetPos(data []byte, off int) Pos {
	if off > len(data) {
		off = len(data)
	}
	if off < 0 {
		off = 0
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	return Pos{Line: line, Col: 1 + utf8.RuneCount(data[start:off])}
}
