// Package session is the codec of the A2E session protocol
// (specs/a2e-session-ndjson.md, pinned by RESOLUTIONS' "A2E session
// protocol"): NDJSON messages over a byte stream, one compact JSON object per
// line, between an agent and sluice.
//
// The pieces, each usable alone:
//
//   - [Reader] reads lines of bounded size (a longer line is an error the
//     caller answers, and reading goes on at the next line) and decodes them
//     through a [Registry]; [Writer] stamps and writes messages, one Write
//     call per line, safe for concurrent use.
//   - [Registry] maps type strings to Go types: the base namespace
//     (handshake, ping, pong, shutdown, error, invoke/event) and the tool
//     namespace are always there; plugins add theirs ([MCP] is one). Decoding
//     checks every field against its struct tags and names the bad field in
//     an [*Error] whose Code the server answers with (parse_error,
//     invalid_message, schema_violation, version_mismatch). A type nothing
//     registered decodes as [*Generic] with its raw fields.
//   - [Sequencer] numbers events per req_id; [Stamper] and [NewID] make the
//     base fields; [Client] is the agent's side: handshake, concurrent calls
//     matched by req_id, events to a callback, pings answered, clean close.
//
// Wire conventions:
//   - Base fields a2e ("1.0"), type, id (32 hex characters) and ts (float
//     seconds) are required on input; `version` is read as an alias of `a2e`
//     (both present must agree), as the SDK writes `version`. A major version
//     other than 1 is a version_mismatch.
//   - A field a known type does not define is skipped, at any depth, as the
//     SDK's pydantic models skip it ([Registry.DecodeNoting] reports each);
//     a defined field of the wrong type, a missing required field or a bad
//     value is a schema_violation naming the field.
//   - What sluice writes is what the SDK's models read: capability names of
//     [Capabilities] only, ToolParameter lists, integer duration_ms, event
//     data and error detail as objects (the gateway's SDK transcripts check it).
//   - JSON null reads as an absent field. Output leaves out optional fields
//     that are empty and always writes required ones and meaningful
//     booleans (ok, success, enabled, retryable, streaming and idempotent of
//     a tool).
//   - Free-form values (arguments, data, detail, metadata, JSON Schemas) are
//     json.RawMessage: kept exactly as sent, never decoded by the codec.
//     Their nesting is bounded; duplicate keys inside them are not checked
//     (the base fields and every typed field are).
//   - Error messages name fields, types, lines and byte offsets, never a
//     field's value: auth_token is a secret, and arguments may hold others.
//
// The package is a pure codec: it imports only the standard library and its
// sibling protocol packages.
package session
