package a2aserver

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/sluicehq/sluice/protocol/agenthttp"
)

// maxContextID bounds a caller's contextId, which the run's record keeps.
const maxContextID = 128

// inputOf is the agent's input for msg: the first DataPart whose value is
// a JSON object, as it is; else the message's TextParts joined by newlines,
// as {"text": ...}. A message with neither, or with a file part, is refused:
// HTTP task agents take JSON.
func inputOf(msg *a2a.Message) (map[string]any, error) {
	var texts []string
	for i, part := range msg.Parts {
		if part == nil {
			return nil, invalid("message.parts[%d] is null", i)
		}
		switch c := part.Content.(type) {
		case a2a.Data:
			obj, ok := c.Value.(map[string]any)
			if !ok {
				return nil, invalid("message.parts[%d]: a data part must hold a JSON object (the agent's input)", i)
			}
			return obj, nil
		case a2a.Text:
			texts = append(texts, string(c))
		default:
			return nil, a2a.NewError(a2a.ErrUnsupportedContentType,
				fmt.Sprintf("message.parts[%d]: file parts are not accepted; send a data part (a JSON object) or text", i))
		}
	}
	if len(texts) == 0 {
		return nil, invalid("message.parts holds no data or text part")
	}
	return map[string]any{"text": strings.Join(texts, "\n")}, nil
}

// contextOf is msg's contextId, or one derived from its messageId, so that
// a message sent again without a contextId starts nothing new (its run's
// client id and workflow are the same).
func contextOf(msg *a2a.Message) (string, error) {
	if msg.ContextID == "" {
		sum := sha256.Sum256([]byte(msg.ID))
		return "ctx-" + hex.EncodeToString(sum[:12]), nil
	}
	if len(msg.ContextID) > maxContextID {
		return "", invalid("message.contextId is longer than %d bytes", maxContextID)
	}
	return msg.ContextID, nil
}

// oneStep is the agent workflow a message to agent runs: one step calling
// it, whose input_mapping passes each key of the input as it is. The
// workflow_id keeps the task's contextId and the name its agent.
func oneStep(agent, contextID string, input map[string]any) (*agenthttp.Workflow, error) {
	mapping := make(map[string]string, len(input))
	for k := range input {
		if k == "" || strings.ContainsAny(k, ".[]${} \t\r\n") {
			return nil, invalid("the input key %q cannot be passed to an agent: keys hold no '.', '[', ']', '$', '{', '}' or spaces", k)
		}
		mapping[k] = "${workflow.input." + k + "}"
	}
	raw, err := json.Marshal(map[string]any{
		"workflow_id": contextID, "name": namePrefix + agent, "version": "1.0.0", "start_step": stepID,
		"steps": map[string]any{stepID: map[string]any{"id": stepID, "agent_name": agent, "next_step": nil, "input_mapping": mapping}},
	})
	if err != nil {
		return nil, invalid("the message does not encode")
	}
	wf, err := agenthttp.DecodeWorkflow(raw, agenthttp.Limits{})
	if err != nil {
		return nil, invalid("%v", err)
	}
	return wf, nil
}

func invalid(format string, args ...any) error {
	return a2a.NewError(a2a.ErrInvalidParams, fmt.Sprintf(format, args...))
}
