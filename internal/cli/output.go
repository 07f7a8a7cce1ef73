package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"unicode"

	"github.com/goccy/go-yaml"
	"github.com/spf13/cobra"

	"github.com/sluicehq/sluice/client"
)

// Output is the one place commands print objects and lists: -o json, yaml
// or table, the same shape per object everywhere. A list is always a JSON
// array of the objects the API returns (never wrapped); yaml and table are
// made from that JSON, so they show exactly the same fields.

// The output formats.
const (
	outJSON  = "json"
	outYAML  = "yaml"
	outTable = "table"
)

// addOutputFlag registers -o/--output on cmd.
func addOutputFlag(cmd *cobra.Command, format *string) {
	cmd.Flags().StringVarP(format, "output", "o", "", "output format: json, yaml or table (default: table on a terminal, else json)")
}

// outputFormat resolves -o: its value, else a table when stdout is a
// terminal and JSON when it is not (a pipe or a file is read by a program).
func (s Stdio) outputFormat(flag string) (string, error) {
	switch flag {
	case outJSON, outYAML, outTable:
		return flag, nil
	case "":
		if s.outTerminal() {
			return outTable, nil
		}
		return outJSON, nil
	}
	return "", fail(ExitInvalid, "-o %q: the output format is json, yaml or table", flag)
}

// start is the prologue of a command that prints what a server answers:
// -o resolved, then the client made (flags first: a bad -o is named before
// a missing key).
func (s Stdio) start(flag string, newClient func() (*client.Client, error)) (string, *client.Client, error) {
	format, err := s.outputFormat(flag)
	if err != nil {
		return "", nil, err
	}
	c, err := newClient()
	if err != nil {
		return "", nil, err
	}
	return format, c, nil
}

func (s Stdio) outTerminal() bool {
	if s.OutIsTerminal != nil {
		return *s.OutIsTerminal
	}
	return isTerminal(s.Out)
}

// render prints v in format (resolved by outputFormat). cols are the
// columns of a table of a list (JSON member names), and the first rows of
// a table of one object.
func (s Stdio) render(format string, v any, cols ...string) error {
	switch format {
	case outYAML:
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		y, err := yaml.JSONToYAML(b)
		if err != nil {
			return fmt.Errorf("printing YAML: %v", err)
		}
		_, err = s.Out.Write(y)
		return err
	case outTable:
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		var g any
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		if err := dec.Decode(&g); err != nil {
			return err
		}
		return writeTable(s.Out, g, cols)
	}
	return writeJSON(s.Out, v)
}

// renderLine prints v as one line of JSON (NDJSON: a stream of frames).
func (s Stdio) renderLine(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = s.Out.Write(append(b, '\n'))
	return err
}

// writeTable prints a list as rows under cols (uppercased), one object as
// NAME  value lines (cols first, then its other members by name), and
// anything else as its JSON.
func writeTable(w interface{ Write([]byte) (int, error) }, v any, cols []string) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	switch x := v.(type) {
	case []any:
		if len(cols) == 0 && len(x) > 0 {
			if m, ok := x[0].(map[string]any); ok {
				cols = sortedKeys(m)
			}
		}
		if len(cols) > 0 {
			fmt.Fprintln(tw, strings.ToUpper(strings.Join(cols, "\t")))
		}
		for _, row := range x {
			m, ok := row.(map[string]any)
			if !ok {
				fmt.Fprintln(tw, cell(row))
				continue
			}
			cells := make([]string, len(cols))
			for i, c := range cols {
				cells[i] = cell(m[c])
			}
			fmt.Fprintln(tw, strings.Join(cells, "\t"))
		}
	case map[string]any:
		keys := slices.DeleteFunc(slices.Clone(cols), func(k string) bool { _, ok := x[k]; return !ok })
		for _, k := range sortedKeys(x) {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
		for _, k := range keys {
			fmt.Fprintf(tw, "%s\t%s\n", strings.ToUpper(k), cell(x[k]))
		}
	default:
		fmt.Fprintln(tw, cell(x))
	}
	return tw.Flush()
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// maxCell is the widest a table cell gets: a nested object is cut, whole
// in -o json.
const maxCell = 60

// cell is one table cell: a scalar as text, an object or list as compact
// JSON, cut to maxCell. Control characters (a server's strings may hold
// terminal escapes) are shown escaped, so a cell cannot rewrite the screen
// or break the table.
func cell(v any) string {
	var s string
	switch x := v.(type) {
	case nil:
		return "-"
	case string:
		s = x
	case json.Number:
		s = x.String()
	case bool:
		s = fmt.Sprint(x)
	default:
		b, _ := json.Marshal(x)
		s = string(b)
	}
	s = printable(s)
	if r := []rune(s); len(r) > maxCell {
		s = string(r[:maxCell-1]) + "…"
	}
	if s == "" {
		return "-"
	}
	return s
}

// printable is s with its control characters escaped (\n, \x1b), and s
// itself when it has none: what a server sent cannot move the cursor,
// clear the screen or break a line of the output.
func printable(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	q := fmt.Sprintf("%q", s)
	return q[1 : len(q)-1]
}
