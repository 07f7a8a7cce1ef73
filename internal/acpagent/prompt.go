package acpagent

import (
	"encoding/json"
	"fmt"
	"strings"

	acp "github.com/coder/acp-go-sdk"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// promptIn is what one prompt holds, read once for every kind of target.
type promptIn struct {
	text   string         // the text blocks, joined by blank lines
	params map[string]any // the session/prompt params as ACP sends them, for e2a's codec
}

// readPrompt checks the prompt's blocks against what initialize advertised
// (text, resource links, embedded resources; no images or audio) and its
// size, naming the block that is refused.
func readPrompt(p acp.PromptRequest) (*promptIn, error) {
	var texts []string
	size := 0
	for i, b := range p.Prompt {
		switch {
		case b.Text != nil:
			texts = append(texts, b.Text.Text)
			size += len(b.Text.Text)
		case b.Resource != nil:
			raw, _ := json.Marshal(b.Resource.Resource)
			size += len(raw)
		case b.ResourceLink != nil:
			size += len(b.ResourceLink.Uri)
		case b.Image != nil, b.Audio != nil:
			return nil, acp.NewInvalidParams(map[string]any{"path": fmt.Sprintf("prompt[%d]", i),
				"error": "sluice takes text, resource links and embedded text resources; images and audio are not advertised in promptCapabilities"})
		}
	}
	if size > maxPromptBytes {
		return nil, fault.New(fault.TooLarge, "the prompt is %d bytes, over sluice acp's %d", size, maxPromptBytes).WithDetail("path", "prompt")
	}
	raw, err := json.Marshal(p)
	if err != nil {
		return nil, fault.New(fault.Invalid, "the prompt cannot be encoded: %v", err)
	}
	var params map[string]any
	if err := json.Unmarshal(raw, &params); err != nil {
		return nil, fault.New(fault.Invalid, "the prompt cannot be read: %v", err)
	}
	return &promptIn{text: strings.Join(texts, "\n\n"), params: params}, nil
}

// agentInvoke is the prompt as agent.invoke for agent, through e2a's ACP
// codec (EnvelopeFromACP, then ToAgentInvoke): the agent's input is
// {prompt: [ACP content blocks], sessionId, messageId?, _meta?}, to which
// sluice adds text (the text blocks joined by blank lines) and cwd (the
// session's). streaming asks for chunks; a server that has none sends the
// final frame alone. context_id is the session's id.
func (in *promptIn) agentInvoke(agent string, s *session) (*e2a.Envelope, error) {
	env := e2a.EnvelopeFromACP(e2a.ACPSessionPrompt, in.params, e2a.ACPOptions{Channel: "acp", SessionID: s.id})
	out, err := e2a.ToAgentInvoke(env, agent)
	if err != nil {
		return nil, fault.New(fault.Invalid, "%v", err)
	}
	input, _ := out.Params["input"].(map[string]any)
	input["text"] = in.text
	if s.cwd != "" {
		input["cwd"] = s.cwd
	}
	out.Params["streaming"] = true
	// The editor's session is the conversation: an ACP agent behind sluice
	// keeps one session for all of its prompts (docs/protocols/acp.md).
	out.Params["context_id"] = s.id
	out.RequestID = e2a.NewUUID()
	return out, nil
}

// call is an envelope of method with params, in the session.
func call(method string, params map[string]any, s *session) *e2a.Envelope {
	env := e2a.NewEnvelope()
	env.RequestID = e2a.NewUUID()
	env.Method = method
	env.Channel = "acp"
	env.SessionID = s.id
	env.Params = params
	return env
}
