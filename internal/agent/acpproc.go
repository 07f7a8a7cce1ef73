package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/vault/redact"
	"github.com/sluicehq/sluice/protocol/agenthttp"
)

// An agent registered with protocol acp is a program sluice runs, named by
// its entry from the operator's allowlist (config agents.acp.commands),
// spoken to as an ACP client with acp-go-sdk over its stdin and stdout.
// Processes are kept between calls, per agent and spec, at most
// agents.acp.max_processes at once in this process, and stopped when idle
// for agents.acp.idle_timeout or when they die (the next call starts
// another). A process serves one call at a time, and every call is a new ACP
// session (session/new, then one session/prompt): callers' conversations
// never mix in the agent's memory.

// acpCancelWait is how long a call that gives up waits for the agent to end
// its turn (stopReason cancelled) after session/cancel; an agent that does
// not is stopped.
const acpCancelWait = 5 * time.Second

// acpProc is one running agent process.
type acpProc struct {
	key     string // agent name and spec: a changed entry never reuses a process
	agent   string
	cmd     *exec.Cmd
	stdin   io.Closer
	conn    *acp.ClientSideConnection
	client  *acpClient
	exited  chan struct{} // closed when the process is gone
	status  string        // how it ended, once exited is closed
	stopped atomic.Bool   // stop was called: no call may take it

	// Guarded by the pool's mutex.
	busy     bool
	lastUsed time.Time
}

func (p *acpProc) dead() bool {
	if p.stopped.Load() {
		return true
	}
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// stop ends the process: stdin closed (an agent may exit on its own), then
// killed.
func (p *acpProc) stop() {
	p.stopped.Store(true)
	if p.cmd == nil || p.cmd.Process == nil {
		return
	}
	_ = p.stdin.Close()
	_ = p.cmd.Process.Kill()
}

// acpPool holds the agent processes of one Invoker.
type acpPool struct {
	o   config.ACP
	log *slog.Logger

	held *acpHeldSet // turns left open on a permission request asked of the caller

	mu     sync.Mutex
	procs  []*acpProc
	closed bool // Close was called: no process starts again
}

func newACPPool(o config.ACP, log *slog.Logger) *acpPool {
	if o.MaxProcesses <= 0 {
		o.MaxProcesses = 8
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = 5 * time.Minute
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = 10 * time.Second
	}
	if o.PendingTimeout <= 0 {
		o.PendingTimeout = 10 * time.Minute
	}
	if o.MaxStderrBytes < 0 {
		o.MaxStderrBytes = 0
	}
	return &acpPool{o: o, log: log, held: newACPHeldSet()}
}

// acpRun is what a call of an acp entry runs: the allowlisted program,
// its arguments, environment and working directory.
type acpRun struct {
	spec    agenthttp.ACPSpec
	command string // the allowlist key
	prog    config.ACPCommand
	args    []string
	cwd     string
	scrub   *redact.Redactor // the values of the command's env
}

// acpRunOf resolves entry e against the allowlist: a command not on it, or
// arguments it does not take, are PermissionDenied naming the command.
func acpRunOf(cmds map[string]config.ACPCommand, e agenthttp.Entry) (*acpRun, *fault.Error) {
	s := e.ACP
	if s == nil {
		return nil, fault.New(fault.Invalid, "agent %s: field acp is required for protocol acp", e.Name).WithDetail("field", "acp")
	}
	prog, ok := cmds[s.Command]
	if !ok {
		return nil, fault.New(fault.PermissionDenied, "agent %s: command %q is not on the server's allowlist of ACP agents (agents.acp.commands)", e.Name, s.Command).
			WithDetail("agent", e.Name).WithDetail("field", "acp.command").
			WithSuggestions("Ask the operator to add " + s.Command + " under agents.acp.commands, or name a command that is there")
	}
	if len(s.Args) > 0 && !prog.EntryArgs {
		return nil, fault.New(fault.PermissionDenied, "agent %s: command %q takes no arguments from registry entries (agents.acp.commands.%s.entry_args is false)", e.Name, s.Command, s.Command).
			WithDetail("agent", e.Name).WithDetail("field", "acp.args")
	}
	cwd := s.Cwd
	if cwd == "" {
		cwd = prog.Dir
	}
	if cwd == "" {
		return nil, fault.New(fault.Invalid, "agent %s has no working directory: set acp.cwd in the entry or dir in agents.acp.commands.%s", e.Name, s.Command).
			WithDetail("agent", e.Name).WithDetail("field", "acp.cwd")
	}
	if prog.Dir != "" && !within(filepath.Clean(prog.Dir), cwd) {
		return nil, fault.New(fault.PermissionDenied, "agent %s: acp.cwd %q is not under %q, the dir of command %q", e.Name, cwd, prog.Dir, s.Command).
			WithDetail("agent", e.Name).WithDetail("field", "acp.cwd")
	}
	env := prog.Environ()
	var secret []string
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if !slices.Contains(plainEnv, k) && len(v) >= 6 {
			secret = append(secret, v)
		}
	}
	return &acpRun{spec: *s, command: s.Command, prog: prog, args: append(slices.Clone(prog.Args), s.Args...), cwd: cwd,
		scrub: redact.New(secret...)}, nil
}

// plainEnv are variables whose values are no secret (and too common to
// scrub from what an agent says).
var plainEnv = []string{"PATH", "HOME", "LANG", "LC_ALL", "TERM", "TMPDIR", "USER", "SHELL", "TZ", "PWD"}

// within reports whether path p is root or under it (both clean).
func within(root, p string) bool {
	return p == root || strings.HasPrefix(p, strings.TrimSuffix(root, "/")+"/")
}

func (r *acpRun) key(agent string) string {
	return fmt.Sprintf("%s\x00%s\x00%q\x00%s\x00%v\x00%v", agent, r.prog.Command, r.args, r.cwd, r.spec.FSRead, r.spec.FSWrite)
}

// acquire returns an idle live process for c, or starts one (evicting an
// idle process of another agent when the pool is full). A full pool of
// busy processes is Unavailable, retried by the entry's policy.
func (pl *acpPool) acquire(c *call, run *acpRun, fsMax int) (*acpProc, *result) {
	key := run.key(c.name)
	var evict []*acpProc
	pl.mu.Lock()
	if pl.closed {
		pl.mu.Unlock()
		return nil, &result{err: fault.New(fault.Unavailable, "agent %s cannot be started: this process is shutting down", c.name).WithDetail("agent", c.name)}
	}
	live := pl.procs[:0]
	for _, p := range pl.procs {
		if p.dead() && !p.busy {
			continue
		}
		live = append(live, p)
	}
	pl.procs = live
	for _, p := range pl.procs {
		if p.key == key && !p.busy && !p.dead() {
			p.busy = true
			pl.mu.Unlock()
			return p, nil
		}
	}
	if len(pl.procs) >= pl.o.MaxProcesses {
		// The idle process used longest ago makes room.
		var oldest *acpProc
		for _, p := range pl.procs {
			if !p.busy && (oldest == nil || p.lastUsed.Before(oldest.lastUsed)) {
				oldest = p
			}
		}
		if oldest == nil {
			pl.mu.Unlock()
			return nil, &result{err: fault.New(fault.Unavailable, "agent %s cannot be started: all %d ACP agent processes (agents.acp.max_processes) are busy",
				c.name, pl.o.MaxProcesses).WithDetail("agent", c.name), retry: true}
		}
		pl.procs = slices.DeleteFunc(pl.procs, func(p *acpProc) bool { return p == oldest })
		evict = append(evict, oldest)
	}
	p := &acpProc{key: key, agent: c.name, busy: true, exited: make(chan struct{})}
	pl.procs = append(pl.procs, p)
	pl.mu.Unlock()
	for _, e := range evict {
		e.stop()
	}
	res := pl.start(p, c, run, fsMax)
	if res == nil && p.stopped.Load() { // closed while it started
		res = &result{err: fault.New(fault.Unavailable, "agent %s cannot be started: this process is shutting down", c.name).WithDetail("agent", c.name)}
	}
	if res != nil {
		pl.mu.Lock()
		pl.procs = slices.DeleteFunc(pl.procs, func(q *acpProc) bool { return q == p })
		pl.mu.Unlock()
		p.stop()
		return nil, res
	}
	return p, nil
}

// release gives p back after a call; a dead process is dropped, an idle one
// is stopped after the idle timeout unless a call used it since.
func (pl *acpPool) release(p *acpProc) {
	pl.mu.Lock()
	p.busy = false
	p.lastUsed = time.Now()
	used := p.lastUsed
	dead := p.dead()
	if dead {
		pl.procs = slices.DeleteFunc(pl.procs, func(q *acpProc) bool { return q == p })
	}
	pl.mu.Unlock()
	if dead {
		p.stop() // stopped while it started (Close), or a process that closed its output
		return
	}
	time.AfterFunc(pl.o.IdleTimeout, func() {
		pl.mu.Lock()
		idle := !p.busy && p.lastUsed.Equal(used)
		if idle {
			pl.procs = slices.DeleteFunc(pl.procs, func(q *acpProc) bool { return q == p })
		}
		pl.mu.Unlock()
		if idle {
			pl.log.Debug("ACP agent process idle; stopped", "agent", p.agent)
			p.stop()
		}
	})
}

// close stops every process.
func (pl *acpPool) close() {
	pl.mu.Lock()
	procs := pl.procs
	pl.procs, pl.closed = nil, true
	pl.mu.Unlock()
	for _, p := range procs {
		p.stop()
	}
}

// start runs the program and ACP initialization, within the start timeout.
// The process does not belong to the call that starts it: it outlives it.
func (pl *acpPool) start(p *acpProc, c *call, run *acpRun, fsMax int) *result {
	if fi, err := os.Stat(run.cwd); err != nil || !fi.IsDir() {
		return &result{err: fault.New(fault.Unavailable, "agent %s: its working directory %q is not a directory on this server", c.name, run.cwd).
			WithDetail("agent", c.name).WithDetail("field", "acp.cwd"), counts: true}
	}
	// Pipes of our own: exec's would be closed by Wait, racing the reader
	// for the last lines the process wrote.
	inR, inW, err := os.Pipe()
	if err != nil {
		return &result{err: fault.New(fault.Internal, "agent %s: no pipe for its process: %v", c.name, err)}
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return &result{err: fault.New(fault.Internal, "agent %s: no pipe for its process: %v", c.name, err)}
	}
	cmd := exec.Command(run.prog.Command, run.args...)
	cmd.Env = run.prog.Environ()
	cmd.Dir = run.cwd
	cmd.Stdin, cmd.Stdout = inR, outW
	cmd.Stderr = &acpStderr{log: pl.log, agent: c.name, left: pl.o.MaxStderrBytes, scrub: run.scrub}
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return &result{err: fault.New(fault.Unavailable, "agent %s: command %q (agents.acp.commands.%s) could not be started: %s",
			c.name, run.prog.Command, run.command, clip(run.scrub.ScrubText(err.Error()))).WithDetail("agent", c.name), counts: true}
	}
	p.cmd, p.stdin = cmd, inW
	go func() {
		err := cmd.Wait()
		p.status = "exited"
		if err != nil {
			p.status = err.Error() // "exit status 2", "signal: killed"
		}
		outR.Close()
		inW.Close() // a process that ended on its own holds no pipe of ours
		close(p.exited)
	}()
	p.client = &acpClient{spec: run.spec, cwd: run.cwd, maxBytes: fsMax, log: pl.log, agent: c.name}
	p.conn = acp.NewClientSideConnection(p.client, inW, outR)
	// The SDK logs lines it cannot parse with their text; an agent's output
	// is not for the server's log.
	p.conn.SetLogger(slog.New(slog.DiscardHandler))

	ctx, cancel := context.WithTimeout(context.Background(), pl.o.StartTimeout)
	defer cancel()
	ver := "dev"
	_, err = p.conn.Initialize(ctx, acp.InitializeRequest{
		ProtocolVersion: acp.ProtocolVersionNumber,
		ClientInfo:      &acp.Implementation{Name: "sluice", Version: ver},
		// Only what the entry grants: no terminal, ever.
		ClientCapabilities: acp.ClientCapabilities{Fs: acp.FileSystemCapabilities{ReadTextFile: run.spec.FSRead, WriteTextFile: run.spec.FSWrite}},
	})
	if err != nil {
		why := acpErrText(run.scrub, err)
		switch {
		case p.dead():
			why = "its process ended (" + p.status + ")"
		case ctx.Err() != nil:
			why = "no answer within " + pl.o.StartTimeout.String() + " (agents.acp.start_timeout)"
		}
		return &result{err: fault.New(fault.Unavailable, "agent %s did not initialize: %s", c.name, why).WithDetail("agent", c.name),
			retry: true, counts: true}
	}
	pl.log.Debug("ACP agent process started", "agent", c.name, "pid", cmd.Process.Pid)
	return nil
}

// acpErrText is an error of the connection as one bounded line, scrubbed.
func acpErrText(scrub *redact.Redactor, err error) string {
	var re *acp.RequestError
	if errors.As(err, &re) {
		msg := re.Message
		if d, ok := re.Data.(map[string]any); ok {
			if s, ok := d["error"].(string); ok && s != "" {
				msg += ": " + s
			} else if s, ok := d["details"].(string); ok && s != "" {
				msg += ": " + s
			}
		}
		return clip(scrub.ScrubText(fmt.Sprintf("%s (JSON-RPC error %d)", msg, re.Code)))
	}
	return clip(scrub.ScrubText(err.Error()))
}

// acpStderr logs what an agent process writes to stderr at debug, a line
// at a time, each clipped, until its budget of bytes is spent; the rest is
// read and dropped (a process blocked on a full stderr pipe would hang).
type acpStderr struct {
	log   *slog.Logger
	agent string
	scrub *redact.Redactor
	mu    sync.Mutex
	left  int64
	line  []byte
}

func (w *acpStderr) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(b)
	if w.left <= 0 {
		return n, nil
	}
	b = b[:min(int64(len(b)), w.left)]
	w.left -= int64(len(b))
	w.line = append(w.line, b...)
	for {
		i := bytes.IndexByte(w.line, '\n')
		if i < 0 && len(w.line) < 1024 && w.left > 0 {
			return n, nil
		}
		if i < 0 {
			i = len(w.line)
		}
		if s := strings.TrimSpace(string(w.line[:i])); s != "" {
			w.log.Debug("ACP agent stderr", "agent", w.agent, "line", clip(w.scrub.ScrubText(s)))
		}
		w.line = w.line[min(i+1, len(w.line)):]
		if len(w.line) == 0 {
			return n, nil
		}
	}
}

// running reports whether a live process has key (busy or not).
func (pl *acpPool) running(key string) bool {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	for _, p := range pl.procs {
		if p.key == key && p.cmd != nil && !p.dead() {
			return true
		}
	}
	return false
}
