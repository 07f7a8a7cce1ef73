package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/sluicehq/sluice/internal/urlpath"
	"io"
	"net/http"
	"strings"
	"time"
)

// Client calls one sluice server with one key.
type Client struct {
	base string
	key  string
	http *http.Client
}

// New makes a client for the server at baseURL (e.g. http://127.0.0.1:8080)
// that presents key. httpClient nil means a client with a 2-minute timeout.
func New(baseURL, key string, httpClient *http.Client) *Client {
	if httpClient == nil {
		httpClient = &http.Client{Timeout: 2 * time.Minute}
	}
	return &Client{base: strings.TrimRight(baseURL, "/"), key: key, http: httpClient}
}

// Error is an answer other than 2xx: the HTTP status and the spec's error
// object (or, for 429, the spec's rate-limit body; for an invalid workflow,
// the validate response in Report).
type Error struct {
	Status      int             `json:"-"`
	Type        string          `json:"type"`
	Message     string          `json:"message"`
	OperationID string          `json:"operationId,omitempty"`
	Details     map[string]any  `json:"details,omitempty"`
	Suggestions []string        `json:"suggestions,omitempty"`
	RetryAfter  int             `json:"-"`
	Report      *ValidateResult `json:"-"`
	// Body is the answer as it came, for a caller that reads a shape other
	// than the spec's error object.
	Body []byte `json:"-"`
}

func (e *Error) Error() string {
	if e.Type == "" {
		return fmt.Sprintf("HTTP %d: %s", e.Status, e.Message)
	}
	return fmt.Sprintf("HTTP %d: %s: %s", e.Status, e.Type, e.Message)
}

// Do sends a JSON request and decodes a 2xx answer into out (nil: discard).
func (c *Client) Do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return decodeError(resp, raw)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(raw, out)
}

func decodeError(resp *http.Response, raw []byte) error {
	e := &Error{Status: resp.StatusCode, Body: raw}
	var env struct {
		Error      json.RawMessage `json:"error"`
		Message    string          `json:"message"`
		RetryAfter int             `json:"retry_after"`
		Valid      *bool           `json:"valid"`
	}
	if json.Unmarshal(raw, &env) != nil {
		e.Message = strings.TrimSpace(string(raw))
		return e
	}
	switch {
	case env.Valid != nil:
		var r ValidateResult
		_ = json.Unmarshal(raw, &r)
		e.Report, e.Type, e.Message = &r, "ValidationError", "the workflow is not valid"
		if len(r.Errors) > 0 {
			e.Message = r.Errors[0].Message
		}
	case len(env.Error) > 0 && env.Error[0] == '"': // 429
		e.Type, e.Message, e.RetryAfter = "RateLimited", env.Message, env.RetryAfter
	default:
		_ = json.Unmarshal(env.Error, e)
	}
	return e
}

// pathEscape places an id as one path segment; "." and ".." are encoded
// so that they name that id, not the path above it.
func pathEscape(s string) string { return urlpath.Segment(s) }
