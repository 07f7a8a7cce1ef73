package cli

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/spf13/cobra"

	"github.com/sluicehq/sluice/protocol/e2a"
)

// The e2a commands are filters for users and scripts: JSON on stdin, JSON on
// stdout, exit 2 with the field named when the input is bad.

func newE2ACmd(io Stdio) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "e2a",
		Short: "Convert and check E2A envelopes and response frames (JSON on stdin, JSON on stdout)",
		Long: `Tools for sluice's internal lingua franca (docs/protocols/e2a.md). Each
command reads JSON on stdin and writes JSON on stdout; bad input exits 2 with a
message naming the field and byte offset.`,
	}
	var compact bool
	cmd.PersistentFlags().BoolVar(&compact, "compact", false, "write one compact line instead of indented JSON")
	out := func(v any) error { return writeE2AJSON(io.Out, v, compact) }
	cmd.AddCommand(
		&cobra.Command{
			Use:   "normalize",
			Short: "Read an envelope, an A2A SendMessage or an ACP request, print the normalized envelope",
			Long: `Read one request and print it as a normalized envelope: every field in the
reference's order, null where unset, timestamps in RFC 3339 UTC. It takes
  - an envelope: current, legacy AgentRequest (channel_id, req_method, epoch
    timestamp, metadata) or a mix;
  - an A2A SendMessage: a JSON-RPC request (SendMessage, SendStreamingMessage,
    or A2A 0.3's message/send, message/stream; 0.3 messages become 1.0) or
    the SendMessageRequest alone ({"message": ...});
  - an ACP JSON-RPC request from a client (session/prompt, session/new, ...).`,
			Args: cobra.NoArgs,
			RunE: func(*cobra.Command, []string) error {
				b, err := readStdin(io.In, "request", e2a.DefaultMaxEnvelopeBytes)
				if err != nil {
					return err
				}
				e, err := e2a.NormalizeRequest(b, e2a.Limits{}, e2a.NormalizeOptions{})
				if err != nil {
					return fail(ExitInvalid, "invalid request: %v", err)
				}
				return out(e)
			},
		},
		&cobra.Command{
			Use:   "to-acp",
			Short: "Read an envelope, print the ACP JSON-RPC call it becomes",
			Long: `Read one envelope and print the JSON-RPC 2.0 call an ACP peer receives: ext_method
for method "ext", and for session/prompt a prompt filled from content_blocks or
text/content/query, with sessionId and acp_meta as params._meta (a
session/prompt with nothing to prompt with is refused; a notification such as
session/cancel has no id).`,
			Args: cobra.NoArgs,
			RunE: func(*cobra.Command, []string) error {
				e, err := readEnvelope(io.In)
				if err != nil {
					return err
				}
				call, err := e2a.ToACPCall(e)
				if err != nil {
					return fail(ExitInvalid, "envelope cannot become an ACP call: %v", err)
				}
				return out(call)
			},
		},
		&cobra.Command{
			Use:   "response-to-acp",
			Short: "Read a response frame, print its ACP JSON-RPC response (null when it has none)",
			Args:  cobra.NoArgs,
			RunE: func(*cobra.Command, []string) error {
				r, err := readFrame(io.In)
				if err != nil {
					return err
				}
				return out(e2a.ResponseToACP(r))
			},
		},
		newResponseToA2ACmd(io, out),
		newCheckStreamCmd(io, &compact),
	)
	return cmd
}

func newResponseToA2ACmd(io Stdio, out func(any) error) *cobra.Command {
	var result bool
	cmd := &cobra.Command{
		Use:   "response-to-a2a",
		Short: "Read a response frame, print its A2A 1.0 StreamResponse JSON (null when it has none)",
		Long: `Read a response frame and print the A2A 1.0 JSON it becomes: a StreamResponse
(one of task, message, statusUpdate, artifactUpdate), or with --result the
answer to a SendMessage (a task or a message; null for a chunk or an artifact
update). Whatever the frame carries, A2A 0.3 or 1.0, comes out as A2A 1.0
with every required id filled in (docs/protocols/e2a.md, 5.3).`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			r, err := readFrame(io.In)
			if err != nil {
				return err
			}
			if result {
				return out(e2a.ResultToA2A(r))
			}
			return out(e2a.ResponseToA2A(r))
		},
	}
	cmd.Flags().BoolVar(&result, "result", false, "print the SendMessage result (a task or a message) instead of a stream event")
	return cmd
}

func newCheckStreamCmd(io Stdio, compact *bool) *cobra.Command {
	var allowOpen bool
	cmd := &cobra.Command{
		Use:   "check-stream",
		Short: "Read NDJSON response frames, print a report of broken stream invariants",
		Long: `Read a recording of response frames, one JSON object per line (frames of several
requests may interleave), and print {"ok", "frames", "requests", "violations"}:
every frame that does not decode or breaks the frame rules, and every broken
invariant of spec §12.3 (sequence from 0 rising by 1 per request_id, exactly one
final frame, nothing after it, unique response_id).
Exit 0 when there are none, 1 when there are.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			rep, err := e2a.Check(io.In, e2a.CheckOptions{AllowOpen: allowOpen})
			if err != nil {
				return fail(ExitInvalid, "cannot read stdin: %v", err)
			}
			if err := writeE2AJSON(io.Out, rep, *compact); err != nil {
				return err
			}
			if !rep.OK {
				return silent(ExitFailed)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&allowOpen, "allow-open", false, "accept requests without a final frame (a recording cut short, §12.3)")
	return cmd
}

// readStdin reads all of stdin up to limit bytes.
func readStdin(in io.Reader, what string, limit int) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(in, int64(limit)+1))
	if err != nil {
		return nil, fail(ExitInvalid, "cannot read stdin: %v", err)
	}
	if len(b) > limit {
		return nil, fail(ExitInvalid, "%s on stdin is larger than the %d-byte limit", what, limit)
	}
	return b, nil
}

func readEnvelope(in io.Reader) (*e2a.Envelope, error) {
	b, err := readStdin(in, "envelope", e2a.DefaultMaxEnvelopeBytes)
	if err != nil {
		return nil, err
	}
	e, err := e2a.DecodeEnvelope(b, e2a.Limits{})
	if err != nil {
		return nil, fail(ExitInvalid, "invalid envelope: %v", err)
	}
	return e, nil
}

func readFrame(in io.Reader) (*e2a.Response, error) {
	b, err := readStdin(in, "frame", e2a.DefaultMaxResponseBytes)
	if err != nil {
		return nil, err
	}
	r, err := e2a.DecodeResponse(b, e2a.Limits{})
	if err != nil {
		return nil, fail(ExitInvalid, "invalid response frame: %v", err)
	}
	return r, nil
}

// writeE2AJSON writes v compact or indented, keeping the codec's field order.
func writeE2AJSON(w io.Writer, v any, compact bool) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if !compact {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(v); err != nil {
		return fail(ExitFailed, "cannot write JSON: %v", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}
