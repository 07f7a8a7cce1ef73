package cli

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode"
)

func TestParseWhen(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"2026-11-27T10:00:00Z": time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC),
		"90m":                  now.Add(-90 * time.Minute),
		"7d":                   now.AddDate(0, 0, -7),
		"":                     {},
	} {
		got, err := parseWhen("--since", in, now)
		if err != nil || !got.Equal(want) {
			t.Errorf("%q: %v %v, want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"yesterday", "-5m", "1.5d", "99999999d", "2026-13-01"} {
		_, err := parseWhen("--since", bad, now)
		var ee *exitError
		if !errors.As(err, &ee) || ee.code != ExitInvalid || !strings.Contains(ee.msg, "--since") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func FuzzParseWhen(f *testing.F) {
	for _, s := range []string{"2026-11-27", "2h", "3d", "2026-11-27T10:00:00.5+02:00", "d", "-1d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, err := parseWhen("--until", s, time.Now())
		var ee *exitError
		if err != nil && (!errors.As(err, &ee) || ee.code != ExitInvalid || !strings.Contains(ee.msg, "--until")) {
			t.Fatalf("%q: an error that does not name the flag: %v", s, err)
		}
	})
}

func FuzzWithExecutionID(f *testing.F) {
	f.Add([]byte(`{"type":"beginExecution","executionId":"a","operationOrder":[]}`), "x")
	f.Add([]byte("{\"type\":\"operationUpdate\"}\n\n{\"type\":\"beginExecution\"}\r\n"), "id-2")
	f.Fuzz(func(t *testing.T, doc []byte, id string) {
		out, err := withExecutionID(doc, id)
		if err != nil {
			var ee *exitError
			if !errors.As(err, &ee) || !strings.Contains(ee.msg, "--id") {
				t.Fatalf("an error that does not name --id: %v", err)
			}
			return
		}
		if bytes.Count(out, []byte("\n")) != bytes.Count(doc, []byte("\n")) {
			t.Fatalf("the lines moved:\n%q\n%q", doc, out)
		}
	})
}

// A table cell is one line of printable text, whatever the server sent.
func FuzzCell(f *testing.F) {
	f.Add("plain")
	f.Add("\x1b[2Jcleared\nsecond line\ttab")
	f.Fuzz(func(t *testing.T, s string) {
		c := cell(s)
		if strings.ContainsFunc(c, unicode.IsControl) || len([]rune(c)) > maxCell {
			t.Fatalf("cell(%q) = %q", s, c)
		}
	})
}
