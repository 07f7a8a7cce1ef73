package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// MCP configures the MCP servers that accounts may register for their
// sessions (RESOLUTIONS, the session's mcp namespace). An account reaches an
// MCP server either by naming an entry of Commands, which the operator wrote,
// or by a streamable-HTTP URL under the egress rules: no caller ever chooses a
// program, its arguments or its environment.
type MCP struct {
	// Commands is the allowlist of MCP servers run as child processes,
	// by the name accounts use to register them.
	Commands map[string]MCPCommand `yaml:"commands"`
	// ConnectTimeout bounds starting a server and its MCP initialization.
	ConnectTimeout time.Duration `yaml:"connect_timeout"`
	// CallTimeout bounds one tool call (a session call's own timeout may be
	// shorter).
	CallTimeout time.Duration `yaml:"call_timeout"`
	// IdleTimeout closes a server's connection (and stops its process) when
	// no call used it for this long; the next call connects again.
	IdleTimeout time.Duration `yaml:"idle_timeout"`
	// MaxResultBytes bounds a tool's answer.
	MaxResultBytes int64 `yaml:"max_result_bytes" unit:"bytes"`
	// Serve configures sluice as an MCP server (/mcp, `sluice mcp --stdio`).
	Serve MCPServe `yaml:"serve"`
}

// MCPServe bounds the MCP sessions hosts open with sluice and says which
// hosts and browser origins may reach /mcp.
type MCPServe struct {
	MaxSessions           int           `yaml:"max_sessions"`
	MaxSessionsPerAccount int           `yaml:"max_sessions_per_account"`
	IdleTimeout           time.Duration `yaml:"idle_timeout"`
	PageSize              int           `yaml:"page_size"`
	// ListChangedInterval is how often an account's tools are compared
	// with what its sessions' hosts were told (notifications/tools/list_changed).
	ListChangedInterval time.Duration `yaml:"list_changed_interval"`
	// AllowedHosts are the Host names /mcp answers (empty: any, but a
	// request to a loopback address must name a loopback host).
	AllowedHosts []string `yaml:"allowed_hosts"`
	// AllowedOrigins are browser origins that may call /mcp besides the
	// server's own.
	AllowedOrigins []string `yaml:"allowed_origins"`
}

// MCPCommand is an allowlisted MCP server program. It runs with an empty
// environment but for the variables Env names (NAME passes sluice's own value
// on; NAME=value sets one), so the server's secrets stay its own.
type MCPCommand struct {
	Command string   `yaml:"command"`
	Args    []string `yaml:"args"`
	Env     []string `yaml:"env" redact:"env"` // a NAME=value may be a secret
	Dir     string   `yaml:"dir"`
}

// validateMCP checks the mcp section.
func (d *decoder) validateMCP(m MCP) {
	names := make([]string, 0, len(m.Commands))
	for name := range m.Commands {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		d.validateCommand("mcp.commands."+name, name, m.Commands[name])
	}
	d.durationIn("mcp.connect_timeout", m.ConnectTimeout, 100*time.Millisecond, 10*time.Minute)
	d.durationIn("mcp.call_timeout", m.CallTimeout, 100*time.Millisecond, time.Hour)
	d.durationIn("mcp.idle_timeout", m.IdleTimeout, time.Second, 24*time.Hour)
	d.sizeIn("mcp.max_result_bytes", m.MaxResultBytes, 1<<10, 1<<30)
	d.intIn("mcp.serve.max_sessions", int64(m.Serve.MaxSessions), 1, 1_000_000)
	d.intIn("mcp.serve.max_sessions_per_account", int64(m.Serve.MaxSessionsPerAccount), 1, 1_000_000)
	d.durationIn("mcp.serve.idle_timeout", m.Serve.IdleTimeout, time.Second, 24*time.Hour)
	d.intIn("mcp.serve.page_size", int64(m.Serve.PageSize), 1, 10_000)
	d.durationIn("mcp.serve.list_changed_interval", m.Serve.ListChangedInterval, time.Second, time.Hour)
}

// validateCommand checks an allowlisted program (of mcp.commands or
// agents.acp.commands) at path, by the name entries use.
func (d *decoder) validateCommand(path, name string, c MCPCommand) {
	if !validMCPName(name) {
		d.bad(path, "name %q: use 1 to 64 letters, digits, '_' and '-'", name)
	}
	if c.Command == "" {
		d.bad(path, "needs command: the program to run")
	} else if strings.ContainsAny(c.Command, " \t") && !filepath.IsAbs(c.Command) {
		d.bad(path+".command", "%q is a command line; give the program here and its arguments in args", c.Command)
	}
	for i, e := range c.Env {
		k, _, _ := strings.Cut(e, "=")
		if k == "" || strings.ContainsAny(k, " \t") {
			d.bad(fmt.Sprintf("%s.env[%d]", path, i), "want NAME or NAME=value")
		}
	}
}

// Environ is the environment the program runs with: only what Env names
// (NAME passes sluice's own value on when it is set; NAME=value sets it).
func (c MCPCommand) Environ() []string {
	env := []string{}
	for _, e := range c.Env {
		if strings.Contains(e, "=") {
			env = append(env, e)
		} else if v, ok := os.LookupEnv(e); ok {
			env = append(env, e+"="+v)
		}
	}
	return env
}

func validMCPName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
