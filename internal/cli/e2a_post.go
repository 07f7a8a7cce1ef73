package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/sluicehq/sluice/protocol/e2a"
)

// postE2A posts env to base's /api/v1/e2a with key as the bearer token; the
// answer's body is NDJSON frames (readFrames). A request that did not reach
// the server is an error naming base and what went wrong (never the key).
func postE2A(ctx context.Context, hc *http.Client, base, key string, env *e2a.Envelope) (*http.Response, error) {
	body, err := e2a.AppendEnvelope(nil, env)
	if err != nil {
		return nil, fmt.Errorf("the envelope cannot be encoded: %v", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/v1/e2a", bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("--url: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/x-ndjson")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := hc.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("cannot reach %s: %v", base, err)
	}
	return resp, nil
}

// readFrames reads NDJSON response frames from r and hands each to each,
// up to and with the final one. It returns the body's first line (for a
// message when the body held no frames: an error body of a proxy or an
// older server) and whether a final frame came.
func readFrames(r io.Reader, each func(*e2a.Response) error) (first []byte, final bool, err error) {
	sc := bufio.NewScanner(io.LimitReader(r, 64<<20))
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

// finalFrame reads NDJSON response frames and returns the final one (nil
// when the body held none: the raw first line is returned for a message).
func finalFrame(r io.Reader) (*e2a.Response, []byte, error) {
	var last *e2a.Response
	raw, _, err := readFrames(r, func(f *e2a.Response) error { last = f; return nil })
	if last != nil && !last.IsFinal {
		last = nil
	}
	return last, raw, err
}
