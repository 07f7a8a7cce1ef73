package e2a

import (
	"io"
	"strings"
	"sync"
)

// Redacted replaces a secret in a log line.
const Redacted = "[REDACTED]"

// LogOptions tune a LogWriter.
type LogOptions struct {
	// Secrets are values that must never reach the log (vault values, API keys,
	// tokens the gateway handled); every occurrence inside any string, key or
	// value, is replaced by [REDACTED]. Empty strings are ignored.
	Secrets []string
	// OmitBody drops body, projections and params from every line, for logs
	// that must not hold model output or user content at all (§12.7's
	// "sensitive model output"). The correlation fields stay.
	OmitBody bool
	// MaxBodyBytes bounds one line's body (or params): a larger one is replaced
	// by {"_omitted": "body larger than N bytes"} (default 64 KiB; §12.7 leaves
	// body_ref for a later version).
	MaxBodyBytes int
}

// LogWriter writes frames (and request envelopes) as NDJSON log lines, one
// JSON object per line, as §12.7 asks: every line holds at least request_id,
// response_id, sequence, is_final, response_kind and timestamp (a frame is
// written whole), so a log can be sorted and replayed by sequence.
//
// Secrets never reach it: auth.bearer_token and every value of
// auth.extra_headers are replaced by [REDACTED] (credential_ref and
// api_key_ref are references, not secrets, and stay so an audit can see which
// credential was used); object keys that name a secret (password, token,
// api_key, authorization, cookie, secret, private_key, ...) have their values
// replaced anywhere in params, body, metadata and the other free-form fields;
// and the Secrets values are scrubbed from every string. It is safe for
// concurrent use and may serve as a FrameSink.
type LogWriter struct {
	mu   sync.Mutex
	w    io.Writer
	opts LogOptions
	buf  []byte
}

// NewLogWriter returns a log writer to w.
func NewLogWriter(w io.Writer, opts LogOptions) *LogWriter {
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = 64 << 10
	}
	var secrets []string
	for _, s := range opts.Secrets {
		if s != "" {
			secrets = append(secrets, s)
		}
	}
	opts.Secrets = secrets
	return &LogWriter{w: w, opts: opts}
}

// WriteFrame logs one frame.
func (l *LogWriter) WriteFrame(r *Response) error {
	c := *r
	red := l.redactor()
	if l.opts.OmitBody {
		c.Body, c.Projections = nil, nil
	} else {
		c.Body = l.bounded(red.object(c.Body))
		c.Projections = red.object(c.Projections)
	}
	c.Metadata = red.object(c.Metadata)
	c.ChannelContext = red.object(c.ChannelContext)
	c.A2AMetadata = red.object(c.A2AMetadata)
	c.ACPMeta = red.object(c.ACPMeta)
	c.AgentRef = red.nullable(c.AgentRef)
	c.Provenance.Details = red.object(c.Provenance.Details)
	red.strings(&c.ResponseID, &c.RequestID, &c.CorrelationID, &c.TaskID, &c.ContextID, &c.SessionID,
		&c.MessageID, &c.Channel, &c.UserID, &c.SourceAgentID, &c.Method, &c.Provenance.Converter)
	if c.JSONRPCID.set && !c.JSONRPCID.isNumber {
		c.JSONRPCID.text = red.str(c.JSONRPCID.text)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b, err := AppendResponse(l.buf[:0], &c)
	return l.line(b, err)
}

// WriteEnvelope logs one request envelope, for a request log beside the frame
// log (a line without response_id is a request).
func (l *LogWriter) WriteEnvelope(e *Envelope) error {
	c := *e
	red := l.redactor()
	if l.opts.OmitBody {
		c.Params = nil
	} else {
		c.Params = l.bounded(red.object(c.Params))
	}
	if c.Auth != nil {
		a := *c.Auth
		if a.BearerToken != "" {
			a.BearerToken = Redacted
		}
		if len(a.ExtraHeaders) > 0 {
			h := make(map[string]string, len(a.ExtraHeaders))
			for k := range a.ExtraHeaders {
				h[red.str(k)] = Redacted
			}
			a.ExtraHeaders = h
		}
		a.Meta = red.object(a.Meta)
		red.strings(&a.MethodID, &a.APIKeyRef, &a.CredentialRef)
		c.Auth = &a
	}
	c.ChannelContext = red.object(c.ChannelContext)
	c.A2AMetadata = red.object(c.A2AMetadata)
	c.ACPMeta = red.object(c.ACPMeta)
	c.AgentRef = red.nullable(c.AgentRef)
	c.Provenance.Details = red.object(c.Provenance.Details)
	red.strings(&c.RequestID, &c.CorrelationID, &c.TaskID, &c.ContextID, &c.SessionID, &c.MessageID,
		&c.Channel, &c.UserID, &c.ChatID, &c.SourceAgentID, &c.Method, &c.ExtMethod, &c.Provenance.Converter)
	modes := make([]string, len(c.ExpectedOutputModes))
	for i, m := range c.ExpectedOutputModes {
		modes[i] = red.str(m)
	}
	c.ExpectedOutputModes = modes
	if c.JSONRPCID.set && !c.JSONRPCID.isNumber {
		c.JSONRPCID.text = red.str(c.JSONRPCID.text)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b, err := AppendEnvelope(l.buf[:0], &c)
	return l.line(b, err)
}

func (l *LogWriter) line(b []byte, err error) error {
	if err != nil {
		return err
	}
	b = append(b, '\n')
	l.buf = b
	_, err = l.w.Write(b)
	return err
}

// bounded replaces an object whose encoding is over MaxBodyBytes.
func (l *LogWriter) bounded(m map[string]any) map[string]any {
	if len(m) == 0 {
		return m
	}
	w := encoder{}
	w.obj(m)
	if len(w.b) <= l.opts.MaxBodyBytes {
		return m
	}
	return map[string]any{"_omitted": "body larger than " + itoa(l.opts.MaxBodyBytes) + " bytes"}
}

func itoa(n int) string { return string(appendInt(nil, n, 1)) }

// secretKeyWords mark an object key whose value is a secret. A key matches
// when, lowercased with '-' as '_', it equals a word or ends with "_"+word.
var secretKeyWords = []string{
	"password", "passwd", "secret", "token", "bearer_token", "access_token",
	"refresh_token", "id_token", "api_key", "apikey", "authorization", "cookie",
	"set_cookie", "private_key", "client_secret", "credential", "x_api_key",
}

// IsSecretKey reports whether an object key names a secret value.
func IsSecretKey(k string) bool {
	k = strings.ReplaceAll(strings.ToLower(k), "-", "_")
	for _, w := range secretKeyWords {
		if k == w || strings.HasSuffix(k, "_"+w) {
			return true
		}
	}
	return false
}

type redactor struct{ secrets []string }

func (l *LogWriter) redactor() redactor { return redactor{secrets: l.opts.Secrets} }

func (r redactor) str(s string) string {
	for _, sec := range r.secrets {
		if strings.Contains(s, sec) {
			s = strings.ReplaceAll(s, sec, Redacted)
		}
	}
	return s
}

func (r redactor) strings(ps ...*string) {
	for _, p := range ps {
		*p = r.str(*p)
	}
}

// object returns a redacted copy of m (m itself when nothing changes is not
// worth the bookkeeping: log lines are not the hot path).
func (r redactor) object(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		if IsSecretKey(k) && v != nil {
			out[r.str(k)] = Redacted
			continue
		}
		out[r.str(k)] = r.value(v)
	}
	return out
}

func (r redactor) nullable(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	return r.object(m)
}

func (r redactor) value(v any) any {
	switch x := v.(type) {
	case string:
		return r.str(x)
	case map[string]any:
		return r.object(x)
	case []any:
		out := make([]any, len(x))
		for i, el := range x {
			out[i] = r.value(el)
		}
		return out
	case nil, bool, float64, float32, int, int64, int32, uint64, ID:
		return v
	}
	// A value of another type (a gateway struct) is flattened to plain JSON
	// first so its strings can be scrubbed too.
	w := encoder{}
	w.value(v)
	if w.err != nil {
		return nil
	}
	p := parser{data: w.b, maxDepth: 1 << 10}
	plain, err := p.value()
	if err != nil {
		return nil
	}
	return r.value(plain)
}
