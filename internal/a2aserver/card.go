package a2aserver

import (
	"context"
	"encoding/json"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// BearerScheme names the one security scheme of every card: an account's
// API key as a Bearer token.
const BearerScheme a2a.SecuritySchemeName = "sluiceKey"

// v03 is A2A 0.3, which the same endpoint serves through a2a-go's
// compatibility layer.
const v03 a2a.ProtocolVersion = "0.3"

// cardVersion is the version of the cards' shape (an agent's registry
// entry has no version of its own).
const cardVersion = "1.0.0"

// AgentPath is the path of agent's endpoint ("" for the server's own).
func AgentPath(agent string) string {
	if agent == "" {
		return "/a2a/"
	}
	return "/a2a/" + agent + "/"
}

// RESTSuffix follows an endpoint's path for its HTTP+JSON binding (1.0's
// paths, and 0.3's under /v1).
const RESTSuffix = "rest"

// CapabilityPath is the path of capability ref's (NS/ID) endpoint.
func CapabilityPath(ref string) string { return "/a2a-cap/" + ref + "/" }

// AgentCard is agent's card: its endpoint at base (the URL the caller
// reached sluice at), the Bearer scheme, streaming, one skill. It names
// sluice's endpoint only: the agent's own URL and credentials stay in the
// registry.
func AgentCard(base, agent string) *a2a.AgentCard {
	card := newCard(base+AgentPath(agent), agent, "The agent "+agent+", fronted by sluice: each message is a durable task, run under the caller's grants.")
	card.Skills = []a2a.AgentSkill{{ID: agent, Name: agent, Tags: []string{"agent"},
		Description: "Send a data part (a JSON object: the agent's input) or text ({\"text\": ...}); the answer is the agent's output as a data artifact."}}
	return card
}

// ServerCard is the server's own card: each agent it fronts is a skill
// whose card is at /a2a/<agent>/.well-known/agent-card.json. Its endpoint
// reads and cancels tasks of every agent and starts none.
func ServerCard(base string, agents []string) *a2a.AgentCard {
	card := newCard(base+AgentPath(""), "sluice", "sluice fronts these agents over A2A; each skill is an agent, with its own card at /a2a/<agent>/.well-known/agent-card.json.")
	card.SupportedInterfaces = card.SupportedInterfaces[:2] // JSON-RPC only: it starts no task
	card.Skills = []a2a.AgentSkill{}
	for _, name := range agents {
		card.Skills = append(card.Skills, a2a.AgentSkill{ID: name, Name: name, Tags: []string{"agent"},
			Description: "The agent " + name + "; its card is at " + base + AgentPath(name) + ".well-known/agent-card.json"})
	}
	return card
}

// CapabilityCard is capability ref's (NS/ID) card: one skill, run with a
// data part of its inputs.
func CapabilityCard(base, ref, description string) *a2a.AgentCard {
	if description == "" {
		description = "The A2S capability " + ref + "."
	}
	card := newCard(base+CapabilityPath(ref), ref, description)
	card.Skills = []a2a.AgentSkill{{ID: ref, Name: ref, Tags: []string{"capability"},
		Description: "Send a data part holding the capability's inputs. A task that waits for a decision is INPUT_REQUIRED: " +
			"send the answer as a data part in a message with the task's taskId."}}
	return card
}

func newCard(url, name, description string) *a2a.AgentCard {
	return &a2a.AgentCard{
		Name: name, Description: description, Version: cardVersion,
		SupportedInterfaces: []*a2a.AgentInterface{
			a2a.NewAgentInterface(url, a2a.TransportProtocolJSONRPC),
			{URL: url, ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: v03},
			a2a.NewAgentInterface(url+RESTSuffix, a2a.TransportProtocolHTTPJSON),
			{URL: url + RESTSuffix, ProtocolBinding: a2a.TransportProtocolHTTPJSON, ProtocolVersion: v03},
		},
		// Push notifications: the gateway always keeps configs (Config.Push).
		Capabilities:       a2a.AgentCapabilities{Streaming: true, ExtendedAgentCard: true, PushNotifications: true},
		DefaultInputModes:  []string{"application/json", "text/plain"},
		DefaultOutputModes: []string{"application/json"},
		SecuritySchemes: a2a.NamedSecuritySchemes{BearerScheme: a2a.HTTPAuthSecurityScheme{Scheme: "Bearer",
			Description: "A sluice account's API key"}},
		SecurityRequirements: a2a.SecurityRequirementsOptions{{BearerScheme: a2a.SecuritySchemeScopes{}}},
	}
}

// CardJSON is card in the union of A2A 1.0's and 0.3's formats, so that
// clients of either version read it: a2a-go's union (a2av0's card
// producer: 0.3's url, preferredTransport and protocolVersion beside 1.0's
// supportedInterfaces), with each security scheme also in 1.0's form
// (httpAuthSecurityScheme), which a2a-go v2.4.0's union leaves out and its
// 1.0 card parser requires.
func CardJSON(ctx context.Context, card *a2a.AgentCard) ([]byte, error) {
	producer, ok := a2av0.NewStaticAgentCardProducer(card).(a2asrv.AgentCardJSONProducer)
	if !ok {
		return json.Marshal(card)
	}
	union, err := producer.CardJSON(ctx)
	if err != nil {
		return nil, err
	}
	v1, err := json.Marshal(card.SecuritySchemes)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	var schemes map[string]map[string]any
	if err := json.Unmarshal(union, &doc); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(v1, &schemes); err != nil {
		return nil, err
	}
	if out, ok := doc["securitySchemes"].(map[string]any); ok {
		for name, scheme := range schemes {
			if entry, ok := out[name].(map[string]any); ok {
				for k, v := range scheme {
					entry[k] = v
				}
			}
		}
	}
	return json.Marshal(doc)
}
