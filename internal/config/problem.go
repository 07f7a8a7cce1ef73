package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sluicehq/sluice/internal/fault"
)

// Problem is one thing wrong with the configuration, and where: a file
// position, or the environment variable the value came from, and the key path
// ("server.read_timeout", "egress.allow_private[2]").
type Problem struct {
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Env     string `json:"env,omitempty"`
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
}

// String is "file:line:col: path: message" (or "SLUICE_X: path: message").
func (p Problem) String() string {
	var b strings.Builder
	switch {
	case p.Env != "":
		b.WriteString(p.Env + ": ")
	case p.Line > 0:
		fmt.Fprintf(&b, "%s:%d:%d: ", p.File, p.Line, p.Column)
	case p.File != "":
		b.WriteString(p.File + ": ")
	}
	if p.Path != "" {
		b.WriteString(p.Path + ": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// maxProblemsShown bounds the message; Details holds them all.
const maxProblemsShown = 50

// problemsError is one Invalid error listing every problem, file positions
// first in file order.
func problemsError(ps []Problem) error {
	if len(ps) == 0 {
		return nil
	}
	slices.SortStableFunc(ps, func(a, b Problem) int {
		switch {
		case a.Line > 0 && b.Line > 0:
			if a.Line != b.Line {
				return a.Line - b.Line
			}
			return a.Column - b.Column
		case a.Line > 0:
			return -1
		case b.Line > 0:
			return 1
		}
		return 0
	})
	lines := make([]string, 0, min(len(ps), maxProblemsShown)+1)
	for i, p := range ps {
		if i == maxProblemsShown {
			lines = append(lines, fmt.Sprintf("... and %d more", len(ps)-i))
			break
		}
		lines = append(lines, p.String())
	}
	noun := "problem"
	if len(ps) > 1 {
		noun = "problems"
	}
	return fault.New(fault.Invalid, "invalid configuration (%d %s):\n  %s", len(ps), noun, strings.Join(lines, "\n  ")).
		WithDetail("problems", ps).
		WithSuggestions("docs/configuration.md lists every key with its default")
}
