package config

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Agents configures how HTTP task agents are called: through a queue, the
// gateway enqueuing and a worker pool calling the agent (docs/scale-out.md).
type Agents struct {
	// Queue is the queue of agent tasks: "" for the store's own (the local
	// queue with SQLite, the PostgreSQL queue with PostgreSQL), or a
	// nats://host:port[,host:port...] (JetStream) or
	// kafka://host:port[,host:port...] URL shared with `sluice worker`s.
	Queue string `yaml:"queue" redact:"url"`
	// Workers is the size of this process's pool of agent task workers; 0
	// runs none (the tasks are for `sluice worker` processes).
	Workers int `yaml:"workers"`
	// MonitoringTopic receives a RUNNING and then a COMPLETED or FAILED
	// update per task and agent workflow step; "": none are published.
	MonitoringTopic string `yaml:"monitoring_topic"`
	// MaxWait bounds how long a caller waits for a task's result.
	MaxWait time.Duration `yaml:"max_wait"`
	// ACP configures the ACP agents sluice runs (registry entries of
	// protocol acp).
	ACP ACP `yaml:"acp"`
}

// ACP configures the Agent Client Protocol agents sluice runs as child
// processes. An entry of protocol acp names one of Commands: no registrant
// ever chooses a program or its environment. The allowlist is its own, not
// mcp.commands: an MCP server an operator lets accounts attach to their
// sessions is not thereby an agent anyone may register, and an ACP agent
// (which edits files in its working directory) is not an MCP server.
type ACP struct {
	Commands map[string]ACPCommand `yaml:"commands"`
	// MaxProcesses bounds the agent processes alive at once in this
	// process (gateway or worker); a call past it waits for none, it fails
	// Unavailable (and is retried by the entry's retry_config).
	MaxProcesses int `yaml:"max_processes"`
	// IdleTimeout stops a process no call used for this long.
	IdleTimeout time.Duration `yaml:"idle_timeout"`
	// StartTimeout bounds starting a process and its initialize.
	StartTimeout time.Duration `yaml:"start_timeout"`
	// MaxStderrBytes bounds what is logged (at debug) of one process's
	// stderr; the rest is read and dropped.
	MaxStderrBytes int64 `yaml:"max_stderr_bytes" unit:"bytes"`
	// PendingTimeout bounds how long a permission request an entry asks of
	// its caller (acp.permission ask) holds its turn and process open: past
	// it the request is answered cancelled and the turn ends.
	PendingTimeout time.Duration `yaml:"pending_timeout"`
}

// ACPCommand is an allowlisted ACP agent program, as an MCPCommand is: it
// runs with an empty environment but for Env (NAME passes sluice's own value
// on; NAME=value sets one), in Dir (the default working directory of its
// sessions, and the root under which entries may name theirs). Entries may
// add arguments only when EntryArgs is true.
type ACPCommand struct {
	Command   string   `yaml:"command"`
	Args      []string `yaml:"args"`
	Env       []string `yaml:"env"`
	Dir       string   `yaml:"dir"`
	EntryArgs bool     `yaml:"entry_args"`
}

// Environ is the environment the program runs with (MCPCommand.Environ).
func (c ACPCommand) Environ() []string { return MCPCommand{Env: c.Env}.Environ() }

// QueueKind is the scheme of Queue: "" (the store's), "nats" or "kafka".
func (a Agents) QueueKind() string {
	if a.Queue == "" {
		return ""
	}
	scheme, _, _ := strings.Cut(a.Queue, "://")
	return strings.ToLower(scheme)
}

// Redacted is Queue with any password replaced by "xxxxx".
func (a Agents) Redacted() string {
	u, err := url.Parse(a.Queue)
	if err != nil {
		if strings.Contains(a.Queue, "@") {
			return "[unparsable URL]"
		}
		return a.Queue
	}
	return u.Redacted()
}

// String, GoString and MarshalJSON show the queue URL redacted: it may hold
// a password, and a configuration gets printed.
func (a Agents) String() string {
	return fmt.Sprintf("{Queue:%s Workers:%d MonitoringTopic:%s MaxWait:%s ACP:%+v}", a.Redacted(), a.Workers, a.MonitoringTopic, a.MaxWait, a.ACP.String())
}

// GoString is String.
func (a Agents) GoString() string { return "config.Agents" + a.String() }

// MarshalJSON writes the fields with the queue URL redacted.
func (a Agents) MarshalJSON() ([]byte, error) {
	type plain Agents
	p := plain(a)
	p.Queue = a.Redacted()
	return json.Marshal(p) // ACP marshals itself redacted
}

// Redacted is c with the values its commands' env sets replaced by
// "xxxxx" (NAME=value may hold the agent's own credential); String,
// GoString and MarshalJSON show it so.
func (c ACP) Redacted() ACP {
	out := c
	out.Commands = make(map[string]ACPCommand, len(c.Commands))
	for name, cmd := range c.Commands {
		env := make([]string, len(cmd.Env))
		for i, e := range cmd.Env {
			if k, _, ok := strings.Cut(e, "="); ok {
				e = k + "=xxxxx"
			}
			env[i] = e
		}
		cmd.Env = env
		out.Commands[name] = cmd
	}
	return out
}

func (c ACP) String() string {
	type plain ACP
	return fmt.Sprintf("%+v", plain(c.Redacted()))
}

// GoString is String.
func (c ACP) GoString() string { return "config.ACP" + c.String() }

// MarshalJSON writes c redacted.
func (c ACP) MarshalJSON() ([]byte, error) {
	type plain ACP
	return json.Marshal(plain(c.Redacted()))
}

func (d *decoder) validateAgents(a Agents) {
	d.intIn("agents.workers", int64(a.Workers), 0, 1024)
	for _, name := range slices.Sorted(maps.Keys(a.ACP.Commands)) {
		c := a.ACP.Commands[name]
		d.validateCommand("agents.acp.commands."+name, name, MCPCommand{Command: c.Command, Args: c.Args, Env: c.Env, Dir: c.Dir})
		if c.Dir != "" && !filepath.IsAbs(c.Dir) {
			d.bad("agents.acp.commands."+name+".dir", "%q is not an absolute path", c.Dir)
		}
	}
	d.intIn("agents.acp.max_processes", int64(a.ACP.MaxProcesses), 1, 4096)
	d.durationIn("agents.acp.idle_timeout", a.ACP.IdleTimeout, time.Second, 24*time.Hour)
	d.durationIn("agents.acp.start_timeout", a.ACP.StartTimeout, 100*time.Millisecond, 10*time.Minute)
	d.sizeIn("agents.acp.max_stderr_bytes", a.ACP.MaxStderrBytes, 0, 64<<20)
	d.durationIn("agents.acp.pending_timeout", a.ACP.PendingTimeout, time.Second, 24*time.Hour)
	d.durationIn("agents.max_wait", a.MaxWait, time.Second, 24*time.Hour)
	if a.Queue != "" {
		u, err := url.Parse(a.Queue)
		switch {
		case err != nil:
			// The URL may hold a password: the message does not repeat it.
			d.bad("agents.queue", "is not a URL")
		case u.Scheme != "nats" && u.Scheme != "kafka":
			d.bad("agents.queue", "want nats://HOST:PORT or kafka://HOST:PORT (or empty for the store's queue), got scheme %q", u.Scheme)
		case u.Host == "":
			d.bad("agents.queue", "names no host")
		}
	}
	if len(a.MonitoringTopic) > 256 || strings.ContainsFunc(a.MonitoringTopic, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		d.bad("agents.monitoring_topic", "want a topic name of at most 256 bytes without control characters")
	}
}
