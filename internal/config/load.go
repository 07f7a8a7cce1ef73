package config

import (
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/sluicehq/sluice/internal/fault"
)

// maxConfigBytes bounds a config file.
const maxConfigBytes = 1 << 20

//go:embed defaults.yaml
var defaultsYAML []byte

// DefaultsYAML is the embedded defaults file, every key with a comment:
// `sluice serve --print-defaults` material.
func DefaultsYAML() []byte { return slices.Clone(defaultsYAML) }

var defaults = sync.OnceValue(func() Config {
	var c Config
	d := &decoder{file: "defaults.yaml", at: map[string]Problem{}}
	d.decodeYAML(defaultsYAML, &c)
	d.validate(&c)
	if len(d.problems) > 0 {
		panic(fmt.Sprintf("config: the embedded defaults are invalid: %v", d.problems)) // a build defect; tests catch it
	}
	return c
})

// Defaults is the configuration without a file or environment.
func Defaults() Config {
	c := defaults()
	c.Egress.AllowPrivate = slices.Clone(c.Egress.AllowPrivate)
	return c
}

// Options say where Load looks.
type Options struct {
	// Path is the config file; "" means $SLUICE_CONFIG, and if that is unset
	// too, no file (defaults and environment only). A named file that does
	// not exist is an error.
	Path      string
	LookupEnv func(string) (string, bool) // nil: os.LookupEnv
}

// Load reads the configuration: the defaults, then the file, then the
// environment overrides, then checks. All problems are reported together in
// one Invalid error, each with its file:line:col (or environment variable) and
// key path.
func Load(opts Options) (*Config, error) {
	c, _, err := LoadSources(opts)
	return c, err
}

// Parse is Load of the file text src (named name in messages) without the
// environment: for checking a file and for tests.
func Parse(name string, src []byte) (*Config, error) {
	if len(src) > maxConfigBytes {
		return nil, fault.New(fault.Invalid, "config file %s is larger than %d bytes", name, maxConfigBytes)
	}
	return build(name, src, func(string) (string, bool) { return "", false })
}

// Source says where a key's value came from: the defaults, the file (with
// its position) or an environment variable. `sluice config print` shows it;
// the command adds "flag" for its own overrides.
type Source struct {
	Kind   string `json:"kind"` // "default", "file" or "environment"
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
	Env    string `json:"env,omitempty"`
}

// String is "default", "file:line:col" or "environment VAR".
func (s Source) String() string {
	switch s.Kind {
	case "file":
		return fmt.Sprintf("%s:%d:%d", s.File, s.Line, s.Column)
	case "environment":
		return "environment " + s.Env
	}
	return s.Kind
}

// Sources maps a key path ("log.level", "a2s.audit.basic") to where its
// value came from; a path it lacks holds its default.
type Sources map[string]Source

// Of is where the value at path came from. A list or a mapping of named
// entries counts as from the file or environment when any part of it is.
func (s Sources) Of(path string) Source {
	if src, ok := s[path]; ok {
		return src
	}
	best := Source{Kind: "default"}
	for p, src := range s {
		if strings.HasPrefix(p, path+".") || strings.HasPrefix(p, path+"[") {
			if best.Kind == "default" || src.Kind == "environment" {
				best = src
			}
		}
	}
	return best
}

// LoadSources is Load that also says where each value came from, from the
// same pass that decodes them (so the two cannot disagree).
func LoadSources(opts Options) (*Config, Sources, error) {
	lookup := opts.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	path := opts.Path
	if path == "" {
		path, _ = lookup(EnvConfig)
	}
	var src []byte
	if path != "" {
		var err error
		if src, err = readConfig(path); err != nil {
			return nil, nil, err
		}
	}
	c, d, err := decodeAll(path, src, lookup)
	if err != nil {
		return nil, nil, err
	}
	out := Sources{}
	for p, at := range d.at {
		switch {
		case at.Env != "":
			out[p] = Source{Kind: "environment", Env: at.Env}
		case at.File != "":
			out[p] = Source{Kind: "file", File: at.File, Line: at.Line, Column: at.Column}
		}
	}
	return c, out, nil
}

func build(name string, src []byte, lookup func(string) (string, bool)) (*Config, error) {
	c, _, err := decodeAll(name, src, lookup)
	return c, err
}

func decodeAll(name string, src []byte, lookup func(string) (string, bool)) (*Config, *decoder, error) {
	c := Defaults()
	d := &decoder{file: name, at: map[string]Problem{}}
	if src != nil {
		d.decodeYAML(src, &c)
	}
	d.applyEnv(&c, lookup)
	if len(d.problems) == 0 || !d.failed[""] {
		d.validate(&c)
		d.adminKey(&c)
	}
	if err := problemsError(d.problems); err != nil {
		return nil, nil, err
	}
	return &c, d, nil
}

func readConfig(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fault.New(fault.Invalid, "config file %s does not exist", path).
				WithSuggestions("Start without a config file to use the defaults, or see docs/configuration.md")
		}
		return nil, fault.New(fault.Invalid, "config file %s cannot be read", path).WithCause(err)
	}
	defer f.Close()
	src, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err != nil {
		return nil, fault.New(fault.Invalid, "config file %s cannot be read", path).WithCause(err)
	}
	if len(src) > maxConfigBytes {
		return nil, fault.New(fault.Invalid, "config file %s is larger than %d bytes", path, maxConfigBytes)
	}
	return src, nil
}
