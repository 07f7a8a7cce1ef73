package client

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/sluicehq/sluice/protocol/e2a"
)

// maxE2ABodyBytes bounds the whole NDJSON answer of one E2A POST; each
// frame is bounded by e2a.DefaultMaxResponseBytes.
const maxE2ABodyBytes = 64 << 20

// E2AAnswer is how an E2A POST ended.
type E2AAnswer struct {
	// Status is the HTTP status; 0 when no answer came (the error says why).
	Status int
	// First is the body's first non-empty line: the message to show when
	// the body held no frames (an error body of a proxy or an older server).
	First []byte
	// Final reports whether a final frame came.
	Final bool
}

// PostE2A posts env to /api/v1/e2a and hands each NDJSON response frame to
// each as it arrives, up to and with the final one. A body that is not
// frames stops the reading without an error (Final false, First its first
// line). When the request got no answer, the answer's Status is 0 and the
// error is the transport's (a *url.Error, never holding the key); an error
// of each is returned as it is.
func (c *Client) PostE2A(ctx context.Context, env *e2a.Envelope, each func(*e2a.Response) error) (E2AAnswer, error) {
	body, err := e2a.AppendEnvelope(nil, env)
	if err != nil {
		return E2AAnswer{}, fmt.Errorf("the envelope cannot be encoded: %v", err)
	}
	resp, err := c.send(ctx, http.MethodPost, "/api/v1/e2a", body, "application/x-ndjson")
	if err != nil {
		return E2AAnswer{}, err
	}
	defer resp.Body.Close()
	a := E2AAnswer{Status: resp.StatusCode}
	a.First, a.Final, err = readFrames(resp.Body, each)
	return a, err
}

// readFrames reads NDJSON response frames from r and hands each to each,
// up to and with the final one. It returns the body's first line and
// whether a final frame came.
func readFrames(r io.Reader, each func(*e2a.Response) error) (first []byte, final bool, err error) {
	sc := bufio.NewScanner(io.LimitReader(r, maxE2ABodyBytes))
	sc.Buffer(make([]byte, 0, 64<<10), e2a.DefaultMaxResponseBytes)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if first == nil {
			first = append([]byte(nil), line...)
		}
		f, err := e2a.DecodeResponse(line, e2a.Limits{})
		if err != nil {
			return first, false, nil // not frames
		}
		if err := each(f); err != nil {
			return first, false, err
		}
		if f.IsFinal {
			return first, true, nil
		}
	}
	if err := sc.Err(); err != nil {
		return first, false, fmt.Errorf("reading the answer: %v", err)
	}
	return first, false, nil
}
