package e2a

import "time"

// Response is one outbound frame (the reference's E2AResponse). Fields are in the
// reference's order, which is also the order they are written in.
type Response struct {
	// L1: correlation, ordering, end of stream, status.
	ProtocolVersion string
	ResponseID      string // unique per frame
	RequestID       string // echoes the request
	Sequence        int64  // per RequestID, from 0, rising by 1
	IsFinal         bool   // no frame follows for RequestID; not "success"
	Status          Status
	Kind            Kind       // "response_kind": says what Body holds
	Timestamp       *time.Time // required on the wire; nil is written as null
	Provenance      Provenance
	// L2: the payload; its shape depends on Kind.
	Body map[string]any

	JSONRPCID      ID
	CorrelationID  string
	TaskID         string
	ContextID      string
	SessionID      string
	MessageID      string
	IsStream       bool
	IdentityOrigin IdentityOrigin // "agent" by default
	Channel        string
	UserID         string
	AgentRef       map[string]any // nil is null
	SourceAgentID  string
	Method         string
	// L3: optional pre-built wire JSON under "acp" and "a2a"; never the only truth.
	Projections    map[string]any
	ChannelContext map[string]any
	Metadata       map[string]any
	A2AMetadata    map[string]any
	ACPMeta        map[string]any
}

// The helpers below build the L2 part of the frames sluice's own services send
// (RESOLUTIONS "Calls, results and status words"); a StreamWriter fills in the
// rest. Each returns a new frame the caller may change before writing it.

// CompleteFrame is the final frame of a call that was carried out: e2a.complete,
// status succeeded, body {"result": result}. result is what REST would return,
// even when a workflow's own status is failed.
func CompleteFrame(result any) *Response {
	return &Response{IsFinal: true, Status: StatusSucceeded, Kind: KindComplete, Body: map[string]any{"result": result}}
}

// ErrorFrame is the final frame of a call that could not be carried out (or an
// agent task that failed): e2a.error, status failed, body {code, message,
// details}. code is a stable snake_case string; details holds the spec's error
// object (nil is written as null). message must be safe to show.
func ErrorFrame(code, message string, details any) *Response {
	return &Response{IsFinal: true, Status: StatusFailed, Kind: KindError,
		Body: map[string]any{"code": code, "message": message, "details": details}}
}

// ChunkFrame is a non-final e2a.chunk frame: deltaKind is one of DeltaKinds and
// delta a string or a structured value.
func ChunkFrame(deltaKind string, delta any) *Response {
	return &Response{Status: StatusInProgress, Kind: KindChunk, Body: map[string]any{"delta_kind": deltaKind, "delta": delta}}
}
