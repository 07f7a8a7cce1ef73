package e2a

import "strings"

// ProtocolVersion is the E2A version this package writes; any 1.x is read.
const ProtocolVersion = "1.0"

// Source protocols of Provenance.SourceProtocol (E2A_SOURCE_PROTOCOL_*). The list
// is open by the reference's own word; these are the ones it names.
const (
	SourceE2A = "e2a"
	SourceACP = "acp"
	SourceA2A = "a2a"
)

// IdentityOrigin says who triggered a request. Only the four values below are
// valid; anything else is a decode error.
type IdentityOrigin string

// Identity origins.
const (
	OriginSystem  IdentityOrigin = "system"
	OriginUser    IdentityOrigin = "user"
	OriginAgent   IdentityOrigin = "agent"
	OriginService IdentityOrigin = "service"
)

// IdentityOrigins lists every valid IdentityOrigin.
var IdentityOrigins = []IdentityOrigin{OriginSystem, OriginUser, OriginAgent, OriginService}

// Valid reports whether o is one of IdentityOrigins.
func (o IdentityOrigin) Valid() bool {
	switch o {
	case OriginSystem, OriginUser, OriginAgent, OriginService:
		return true
	}
	return false
}

// Status is a Response's status (E2A_RESPONSE_STATUS_*). It is not success: a
// final frame may have failed.
type Status string

// Statuses.
const (
	StatusSucceeded  Status = "succeeded"
	StatusFailed     Status = "failed"
	StatusInProgress Status = "in_progress"
)

// Statuses lists every valid Status.
var Statuses = []Status{StatusSucceeded, StatusFailed, StatusInProgress}

// Valid reports whether s is one of Statuses.
func (s Status) Valid() bool {
	return s == StatusSucceeded || s == StatusFailed || s == StatusInProgress
}

// Kind is a Response's response_kind: it says what shape Body has.
type Kind string

// Response kinds (E2A_RESPONSE_KINDS), in the reference's order.
const (
	KindComplete         Kind = "e2a.complete"
	KindChunk            Kind = "e2a.chunk"
	KindError            Kind = "e2a.error"
	KindACPSessionUpdate Kind = "acp.session_update"
	KindACPPromptResult  Kind = "acp.prompt_result"
	KindACPJSONRPCError  Kind = "acp.jsonrpc_error"
	KindACPOutputRequest Kind = "acp.output_request"
	KindA2ATask          Kind = "a2a.task"
	KindA2AMessage       Kind = "a2a.message"
	KindA2AStreamEvent   Kind = "a2a.stream_event"
	KindCron             Kind = "cron"
	KindPlanApproval     Kind = "plan.approval_required"
	KindExt              Kind = "ext"
)

// Kinds lists every valid Kind.
var Kinds = []Kind{
	KindComplete, KindChunk, KindError,
	KindACPSessionUpdate, KindACPPromptResult, KindACPJSONRPCError, KindACPOutputRequest,
	KindA2ATask, KindA2AMessage, KindA2AStreamEvent,
	KindCron, KindPlanApproval, KindExt,
}

// Valid reports whether k is one of Kinds.
func (k Kind) Valid() bool {
	for _, x := range Kinds {
		if k == x {
			return true
		}
	}
	return false
}

// Delta kinds of an e2a.chunk body.
const (
	DeltaText      = "text"
	DeltaReasoning = "reasoning"
	DeltaTool      = "tool"
	DeltaCustom    = "custom"
)

// DeltaKinds lists every valid e2a.chunk delta_kind.
var DeltaKinds = []string{DeltaText, DeltaReasoning, DeltaTool, DeltaCustom}

// A2A stream branches of an a2a.stream_event body (E2A_A2A_STREAM_BRANCHES), and
// the camelCase keys of the A2A StreamResponse they become.
const (
	BranchTask           = "task"
	BranchMessage        = "message"
	BranchStatusUpdate   = "status_update"
	BranchArtifactUpdate = "artifact_update"
)

// StreamBranches lists every valid a2a.stream_event branch.
var StreamBranches = []string{BranchTask, BranchMessage, BranchStatusUpdate, BranchArtifactUpdate}

// a2aStreamKeys maps a branch to its StreamResponse key.
var a2aStreamKeys = map[string]string{
	BranchTask:           "task",
	BranchMessage:        "message",
	BranchStatusUpdate:   "statusUpdate",
	BranchArtifactUpdate: "artifactUpdate",
}

// ACP method names.
const (
	ACPInitialize    = "initialize"
	ACPSessionPrompt = "session/prompt"
	ACPSessionUpdate = "session/update"
	ACPSessionCancel = "session/cancel"
	// MethodExt is the envelope method whose real name is in ext_method.
	MethodExt = "ext"
)

// ACPClientToAgentMethods are the JSON-RPC methods a client calls on an agent.
var ACPClientToAgentMethods = []string{
	"initialize", "authenticate", "session/new", "session/load", "session/list",
	"session/set_mode", "session/set_config_option", "session/prompt",
	"session/set_model", "session/fork", "session/resume", "session/close", "logout",
}

// ACPAgentToClientMethods are the JSON-RPC methods an agent calls on its client.
var ACPAgentToClientMethods = []string{
	"session/update", "session/request_permission", "fs/read_text_file",
	"fs/write_text_file", "terminal/create", "terminal/output", "terminal/release",
	"terminal/wait_for_exit", "terminal/kill", "session/elicitation",
}

// ACPNotificationNames are the ACP methods sent as notifications (no id).
var ACPNotificationNames = []string{"session/cancel", "session/update", "session/elicitation/complete"}

// ACPSessionUpdateKinds are the values of session_update_kind and of an ACP
// session/update's update.sessionUpdate.
var ACPSessionUpdateKinds = []string{
	"user_message_chunk", "agent_message_chunk", "agent_thought_chunk", "tool_call",
	"tool_call_update", "todo_update", "plan", "available_commands_update",
	"current_mode_update", "config_option_update", "session_info_update", "usage_update",
}

// Metadata keys the reference's wire uses for itself. Keys with these prefixes
// are codec-internal: the metadata -> channel_context migration skips them so a
// client cannot smuggle them in as channel data.
var internalMetadataPrefixes = []string{"_e2a_wire_", "_jiuwenswarm_"}

// Reserved keys of Response.Metadata for full legacy JSON blobs
// (E2A_WIRE_LEGACY_AGENT_RESPONSE_KEY, E2A_WIRE_LEGACY_AGENT_CHUNK_KEY).
const (
	WireLegacyAgentResponseKey = "_e2a_wire_legacy_agent_response"
	WireLegacyAgentChunkKey    = "_e2a_wire_legacy_agent_chunk"
)

func isInternalMetadataKey(k string) bool {
	for _, p := range internalMetadataPrefixes {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
