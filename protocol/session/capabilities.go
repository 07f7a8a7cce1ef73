package session

import "slices"

// The capability names of the SDK's A2ECapability enum
// (a2e/caps/base/protocol.py of github.com/a2eprotocol/python-sdk): the only
// names a handshake/resp may carry in accepted_caps, since the SDK refuses
// the whole answer when one entry holds another. An agent may ask for
// anything (the SDK's default agent_caps are "streaming" and "artifacts");
// a server answers the names of this list it was asked for and leaves the
// rest out.
const (
	CapSkill      = "skill"
	CapTools      = "tools"
	CapToolkits   = "toolkits"
	CapEnv        = "env"
	CapProc       = "proc"
	CapMemory     = "memory"
	CapLearning   = "learning"
	CapChains     = "chains"
	CapMultiAgent = "multi_agent"
	CapPlanning   = "planning"
	CapMCP        = "mcp"
	CapTest       = "test"
)

// capabilities maps each capability to the namespace of its message types
// (the prefix before the first '/'), where the two differ in name.
var capabilities = []struct{ name, namespace string }{
	{CapSkill, "skill"}, {CapTools, "tool"}, {CapToolkits, "toolkit"}, {CapEnv, "env"},
	{CapProc, "proc"}, {CapMemory, "memory"}, {CapLearning, "learn"}, {CapChains, "chain"},
	{CapMultiAgent, "multi_agent"}, {CapPlanning, "planning"}, {CapMCP, "mcp"}, {CapTest, "test"},
}

// Capabilities returns the SDK's capability names, in its enum's order.
func Capabilities() []string {
	out := make([]string, len(capabilities))
	for i, c := range capabilities {
		out[i] = c.name
	}
	return out
}

// KnownCapability reports whether name is one of Capabilities.
func KnownCapability(name string) bool {
	return slices.ContainsFunc(capabilities, func(c struct{ name, namespace string }) bool { return c.name == name })
}

// CapabilityOf returns the capability an agent asks for to use namespace ns
// ("tool" is "tools", "mcp" is "mcp"), and false for a namespace the SDK has
// no capability for.
func CapabilityOf(ns string) (string, bool) {
	for _, c := range capabilities {
		if c.namespace == ns {
			return c.name, true
		}
	}
	return "", false
}
