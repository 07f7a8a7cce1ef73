// Package e2a is sluice's internal lingua franca (specs/e2a-envelope.md): every
// ingress protocol becomes an [Envelope], every answer a stream of [Response]
// frames. It holds the wire types with the reference implementation's exact
// field order and defaults, a bounded decoder with every read-compatibility path
// of the spec (legacy AgentRequest fields, epoch timestamps, binding, metadata,
// payload), a hand-rolled encoder, the adapters of §8 to and from ACP and Google
// A2A, a [StreamWriter] that keeps the invariants of §12.3, a [Check] that
// verifies them on a recorded stream, and an NDJSON [LogWriter] that never
// writes secrets.
//
// The package is a pure codec: it imports only the standard library and its
// sibling protocol packages.
//
// Conventions that hold across the package:
//   - An empty string field is written as null, and null reads as "".
//   - A nil map field (Params, Body, ChannelContext, ...) is written as {} and
//     an empty or null object reads as nil; AgentRef alone keeps null apart
//     from {} because the reference does.
//   - Free-form values are plain JSON values: map[string]any, []any, string,
//     float64, bool and nil. Object keys are written sorted.
//   - Timestamps are time.Time in UTC; the zero time is null.
package e2a
