package config

import (
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
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
			return nil, err
		}
	}
	return build(path, src, lookup)
}

// Parse is Load of the file text src (named name in messages) without the
// environment: for checking a file and for tests.
func Parse(name string, src []byte) (*Config, error) {
	if len(src) > maxConfigBytes {
		return nil, fault.New(fault.Invalid, "config file %s is larger than %d bytes", name, maxConfigBytes)
	}
	return build(name, src, func(string) (string, bool) { return "", false })
}

func build(name string, src []byte, lookup func(string) (string, bool)) (*Config, error) {
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
		return nil, err
	}
	return &c, nil
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
