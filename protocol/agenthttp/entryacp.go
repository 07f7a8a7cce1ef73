package agenthttp

import (
	"encoding/json"
	"path"
	"strconv"
	"strings"
)

// ACPSpec is how a protocol acp entry's agent is run and what it may ask
// of sluice:
//
//	"acp": {"command": "coder", "args": ["--model", "small"], "cwd": "/srv/work",
//	        "fs": {"read": true, "write": false}, "permission": "reject"}
//
// Command names an entry of the server's allowlist (config
// agents.acp.commands), never a program: the operator decides what runs and
// with which environment; the entry adds arguments (when the command allows
// it) and the working directory, which is also the only place its file
// requests may reach.
type ACPSpec struct {
	Command string
	Args    []string
	// Cwd is the ACP session's working directory (absolute, clean); ""
	// takes the command's dir.
	Cwd string
	// FSRead and FSWrite grant fs/read_text_file and fs/write_text_file,
	// confined to Cwd. Terminals are never granted.
	FSRead, FSWrite bool
	// Permission answers the agent's session/request_permission.
	Permission ACPPermission
}

// ACPPermission is how sluice answers an ACP agent that asks permission.
type ACPPermission string

// The permission policies of an entry.
const (
	// ACPAsk (the default) makes the request a pending decision of the
	// caller: the call ends with the question and its options, the turn
	// and the process stay open, and the caller's answer (a continuation)
	// picks the option.
	ACPAsk ACPPermission = "ask"
	// ACPReject picks the agent's reject_once option (else reject_always,
	// else the request is cancelled): the tool call does not run.
	ACPReject ACPPermission = "reject"
	// ACPAllowOnce picks the agent's allow_once option (never
	// allow_always: the next request is asked again).
	ACPAllowOnce ACPPermission = "allow_once"
)

// ProtocolACP is an Agent Client Protocol agent run as a child process.
const ProtocolACP Protocol = "acp"

// Bounds of an acp entry.
const (
	MaxACPArgs     = 32
	MaxACPArgBytes = 1024
	// MaxACPArgsBytes bounds all arguments together, so that a stored
	// entry (each byte escaped as \u00XX at worst) stays within the
	// store's 64 KiB.
	MaxACPArgsBytes  = 8 << 10
	MaxACPPathBytes  = 1024
	MaxACPNameBytes  = 64
	acpSpecPath      = "acp"
	acpWrongProtocol = "is a field of protocol \"acp\" entries only"
)

var acpFields = []string{"command", "args", "cwd", "fs", "permission"}

// validate checks s (what names the document in errors).
func (s *ACPSpec) validate(what string) error {
	const p = acpSpecPath + "."
	if s.Command == "" {
		return errorf(what, p+"command", 0, "is required: the name of a command of the server's agents.acp.commands")
	}
	if len(s.Command) > MaxACPNameBytes || strings.IndexFunc(s.Command, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
	}) >= 0 {
		return errorf(what, p+"command", 0, "%s is not a command name: use 1 to %d letters, digits, '_' and '-' (it names an entry of agents.acp.commands, not a program)",
			quoteShort(s.Command), MaxACPNameBytes)
	}
	if len(s.Args) > MaxACPArgs {
		return errorf(what, p+"args", 0, "has %d arguments, over the limit of %d", len(s.Args), MaxACPArgs)
	}
	total := 0
	for i, a := range s.Args {
		if len(a) > MaxACPArgBytes || strings.ContainsRune(a, 0) {
			return errorf(what, p+"args["+strconv.Itoa(i)+"]", 0, "must be at most %d bytes without NUL", MaxACPArgBytes)
		}
		total += len(a)
	}
	if total > MaxACPArgsBytes {
		return errorf(what, p+"args", 0, "hold %d bytes together, over the limit of %d", total, MaxACPArgsBytes)
	}
	if s.Cwd != "" {
		switch {
		case len(s.Cwd) > MaxACPPathBytes || strings.ContainsRune(s.Cwd, 0):
			return errorf(what, p+"cwd", 0, "must be at most %d bytes without NUL", MaxACPPathBytes)
		case !strings.HasPrefix(s.Cwd, "/"):
			return errorf(what, p+"cwd", 0, "%s is not an absolute path", quoteShort(s.Cwd))
		case path.Clean(s.Cwd) != s.Cwd:
			return errorf(what, p+"cwd", 0, "%s is not a clean path; write %s", quoteShort(s.Cwd), quoteShort(path.Clean(s.Cwd)))
		}
	}
	switch s.Permission {
	case ACPAsk, ACPReject, ACPAllowOnce:
	default:
		return errorf(what, p+"permission", 0, "is %s; want \"ask\", \"reject\" or \"allow_once\"", quoteShort(string(s.Permission)))
	}
	return nil
}

type acpWire struct {
	Command    string        `json:"command"`
	Args       []string      `json:"args,omitempty"`
	Cwd        string        `json:"cwd,omitempty"`
	FS         acpFSWire     `json:"fs"`
	Permission ACPPermission `json:"permission"`
}

type acpFSWire struct {
	Read  bool `json:"read"`
	Write bool `json:"write"`
}

func (s *ACPSpec) wire() *acpWire {
	if s == nil {
		return nil
	}
	return &acpWire{Command: s.Command, Args: s.Args, Cwd: s.Cwd, FS: acpFSWire{Read: s.FSRead, Write: s.FSWrite}, Permission: s.Permission}
}

// clone is a deep copy of s.
func (s *ACPSpec) clone() *ACPSpec {
	if s == nil {
		return nil
	}
	c := *s
	c.Args = append([]string(nil), s.Args...)
	return &c
}

// acp reads an entry's "acp" object.
func (d decoder) acp(m member) (*ACPSpec, error) {
	const p = acpSpecPath
	members, err := d.object(m.raw, p, m.off)
	if err != nil {
		return nil, err
	}
	s := &ACPSpec{Permission: ACPAsk}
	for _, f := range members {
		fp := join(p, f.key)
		if isNull(f.raw) {
			continue
		}
		switch f.key {
		case "command":
			if s.Command, err = d.str(f, fp); err != nil {
				return nil, err
			}
		case "args":
			if kindOf(f.raw) != "an array" {
				return nil, errorf(d.what, fp, f.off, "want an array of strings, got %s", kindOf(f.raw))
			}
			var raw []json.RawMessage
			if err := json.Unmarshal(f.raw, &raw); err != nil {
				return nil, d.syntax(f.raw, fp, f.off)
			}
			if len(raw) > MaxACPArgs {
				return nil, errorf(d.what, fp, f.off, "has %d arguments, over the limit of %d", len(raw), MaxACPArgs)
			}
			for i, r := range raw {
				a, err := d.str(member{raw: r, off: f.off}, fp+"["+strconv.Itoa(i)+"]")
				if err != nil {
					return nil, err
				}
				s.Args = append(s.Args, a)
			}
		case "cwd":
			if s.Cwd, err = d.str(f, fp); err != nil {
				return nil, err
			}
		case "fs":
			fs, err := d.object(f.raw, fp, f.off)
			if err != nil {
				return nil, err
			}
			for _, g := range fs {
				gp := join(fp, g.key)
				var b bool
				if kindOf(g.raw) != "a boolean" || json.Unmarshal(g.raw, &b) != nil {
					return nil, errorf(d.what, gp, g.off, "want true or false, got %s", kindOf(g.raw))
				}
				switch g.key {
				case "read":
					s.FSRead = b
				case "write":
					s.FSWrite = b
				default:
					return nil, d.unknown(g, fp, "read", "write")
				}
			}
		case "permission":
			v, err := d.str(f, fp)
			if err != nil {
				return nil, err
			}
			s.Permission = ACPPermission(v)
		default:
			return nil, d.unknown(f, p, acpFields...)
		}
	}
	if err := s.validate(d.what); err != nil {
		if fe, ok := err.(*Error); ok && fe.Offset == 0 {
			fe.Offset = m.off
		}
		return nil, err
	}
	return s, nil
}
