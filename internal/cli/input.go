package cli

import (
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/sluicehq/sluice/internal/datamodel"
)

// readDocument reads FILE or "-" (stdin), refusing more than limit bytes.
func readDocument(name string, stdin io.Reader, limit int64) ([]byte, error) {
	var r io.Reader
	if name == "-" {
		r = stdin
	} else {
		f, err := os.Open(name)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fail(ExitInvalid, "%s: no such file", name)
		}
		if err != nil {
			return nil, fail(ExitInvalid, "cannot read %s: %v", name, err)
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fail(ExitInvalid, "cannot read %s: %v", name, err)
	}
	if int64(len(b)) > limit {
		return nil, fail(ExitInvalid, "workflow %s is larger than the %d-byte limit", name, limit)
	}
	return b, nil
}

// readValue reads a flag value that may be given inline, as @FILE or as env:VAR
// (RESOLUTIONS: secret flags take @FILE and env:VAR so values need not sit on the
// command line). what names the flag in errors; errors never echo the value.
func readValue(what, v string, limit int64) (string, error) {
	switch {
	case strings.HasPrefix(v, "@"):
		f, err := os.Open(v[1:])
		if err != nil {
			return "", fail(ExitInvalid, "%s: %v", what, err)
		}
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, limit+1))
		if err != nil {
			return "", fail(ExitInvalid, "%s: %v", what, err)
		}
		if int64(len(b)) > limit {
			return "", fail(ExitInvalid, "%s: file %s is larger than %d bytes", what, v[1:], limit)
		}
		return strings.TrimRight(string(b), "\r\n"), nil
	case strings.HasPrefix(v, "env:"):
		val, ok := os.LookupEnv(v[4:])
		if !ok {
			return "", fail(ExitInvalid, "%s: environment variable %s is not set", what, v[4:])
		}
		return val, nil
	}
	return v, nil
}

// parseInput reads --input: inline JSON or @FILE; it must be a JSON object.
func parseInput(v string) (any, error) {
	if v == "" {
		return nil, nil
	}
	text, err := readValue("--input", v, 1<<20)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(strings.NewReader(text))
	var in any
	if err := dec.Decode(&in); err != nil {
		return nil, fail(ExitInvalid, "--input is not valid JSON: %v", err)
	}
	if dec.More() {
		return nil, fail(ExitInvalid, "--input holds more than one JSON value")
	}
	if _, ok := in.(map[string]any); !ok {
		return nil, fail(ExitInvalid, "--input must be a JSON object, got %s", datamodel.KindOf(in))
	}
	return in, nil
}
