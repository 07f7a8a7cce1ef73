package a2s

import (
	"cmp"
	"fmt"
	"slices"
)

// Severity says whether a problem stops a document (error) or only deserves
// attention (warning).
type Severity string

// The severities.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Diagnostic is one problem found in a document.
type Diagnostic struct {
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	File     string   `json:"file,omitempty"`
	Line     int      `json:"line"`
	Col      int      `json:"col"`
	// Path is the dotted path of the field in the document as written
	// (tasks[1].inputs.threshold); empty for the whole document.
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
}

// String formats the diagnostic as file:line:col: severity: ID message, the
// form compilers use, so editors can jump to it.
func (d Diagnostic) String() string {
	file := d.File
	if file == "" {
		file = "<input>"
	}
	return fmt.Sprintf("%s:%d:%d: %s: %s %s", file, d.Line, d.Col, d.Severity, d.Rule, d.Message)
}

// HasErrors reports whether any diagnostic is an error.
func HasErrors(ds []Diagnostic) bool {
	return slices.ContainsFunc(ds, func(d Diagnostic) bool { return d.Severity == SeverityError })
}

// sortDiagnostics orders by file, position, then rule and message, so output is
// stable whatever order the checks ran in.
func sortDiagnostics(ds []Diagnostic) {
	slices.SortStableFunc(ds, func(a, b Diagnostic) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col),
			cmp.Compare(a.Rule, b.Rule), cmp.Compare(a.Message, b.Message))
	})
}

// Error is a document that could not be read at all: bad syntax, too large,
// too deep. It carries the position of the problem.
type Error struct {
	Rule    string `json:"rule"`
	File    string `json:"file,omitempty"`
	Pos     Pos    `json:"pos"`
	Message string `json:"message"`
}

func (e *Error) Error() string {
	file := e.File
	if file == "" {
		file = "<input>"
	}
	return fmt.Sprintf("%s:%d:%d: %s", file, e.Pos.Line, e.Pos.Col, e.Message)
}

// Diagnostic returns the error as a lint diagnostic.
func (e *Error) Diagnostic() Diagnostic {
	return Diagnostic{Rule: e.Rule, Severity: SeverityError, File: e.File, Line: e.Pos.Line, Col: e.Pos.Col, Message: e.Message}
}
