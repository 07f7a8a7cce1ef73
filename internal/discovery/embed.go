package discovery

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sluicehq/sluice/internal/vault/redact"
)

// Embedder turns texts into vectors, one per text, in order.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Bounds of the OpenAI-compatible client.
const (
	defaultEmbedTimeout     = 30 * time.Second
	defaultEmbedBatch       = 64
	defaultMaxResponseBytes = 32 << 20
	maxEmbedInputBytes      = 8 << 10 // a text is cut here: names and descriptions, not books
	maxEmbedDims            = 1 << 14
)

// OpenAIEmbedder is a client of an OpenAI-compatible embeddings endpoint:
// POST {BaseURL}/v1/embeddings {"model", "input": [...]} answered by
// {"data": [{"index", "embedding": [...]}]}. It is the only way sluice gets
// embeddings: no model is downloaded or run in-process.
type OpenAIEmbedder struct {
	BaseURL string // e.g. https://api.openai.com or http://localhost:11434
	Model   string
	APIKey  string       // sent as a bearer token; never in an error
	Client  *http.Client // nil: http.DefaultClient (the Timeout below still applies)
	// Timeout bounds one request (default 30 s); MaxBatch the texts per
	// request (default 64); MaxResponseBytes the body read (default 32 MiB).
	Timeout          time.Duration
	MaxBatch         int
	MaxResponseBytes int64
}

// Embed implements Embedder, in batches of MaxBatch texts.
func (c *OpenAIEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if c.BaseURL == "" || c.Model == "" {
		return nil, errors.New("embeddings: base URL and model must be set")
	}
	batch := c.MaxBatch
	if batch <= 0 {
		batch = defaultEmbedBatch
	}
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += batch {
		vecs, err := c.embedBatch(ctx, texts[start:min(start+batch, len(texts))])
		if err != nil {
			return nil, err
		}
		out = append(out, vecs...)
	}
	return out, nil
}

func (c *OpenAIEmbedder) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	input := make([]string, len(texts))
	for i, t := range texts {
		input[i] = cutUTF8(t, maxEmbedInputBytes)
	}
	body, err := json.Marshal(map[string]any{"model": c.Model, "input": input})
	if err != nil {
		return nil, err
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = defaultEmbedTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	url := strings.TrimSuffix(c.BaseURL, "/") + "/v1/embeddings"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("embeddings: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if c.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	client := c.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("embeddings: POST %s: %v", url, c.redact(err.Error()))
	}
	defer resp.Body.Close()
	limit := c.MaxResponseBytes
	if limit <= 0 {
		limit = defaultMaxResponseBytes
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("embeddings: reading the answer of %s: %v", url, c.redact(err.Error()))
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("embeddings: the answer of %s is over %d bytes", url, limit)
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("embeddings: %s answered %d: %s", url, resp.StatusCode, c.redact(errorMessage(c.redactor().ScrubJSON(data))))
	}
	vecs, err := DecodeEmbeddings(data, len(texts))
	if err != nil {
		return nil, fmt.Errorf("embeddings: the answer of %s: %v", url, err)
	}
	return vecs, nil
}

// redact removes the API key, in every form the redactor knows, from a
// message, should an endpoint echo it.
func (c *OpenAIEmbedder) redact(s string) string { return c.redactor().ScrubText(s) }

// redactor is the scrubber of the API key (nil: none to scrub).
func (c *OpenAIEmbedder) redactor() *redact.Redactor {
	if c.APIKey == "" {
		return nil
	}
	return redact.New(c.APIKey)
}

// errorMessage is the message of an OpenAI-style error body, or the start
// of the body.
func errorMessage(body []byte) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && e.Error.Message != "" {
		return cutUTF8(e.Error.Message, 512)
	}
	return strings.ToValidUTF8(cutUTF8(string(body), 512), "?")
}

// DecodeEmbeddings reads an embeddings answer that must hold exactly n
// vectors of one dimension, each index 0..n-1 once.
func DecodeEmbeddings(body []byte, n int) ([][]float32, error) {
	var r struct {
		Data []struct {
			Index     *int      `json:"index"`
			Embedding []float64 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("not an embeddings answer: %v", err)
	}
	if len(r.Data) != n {
		return nil, fmt.Errorf("%d embeddings for %d inputs", len(r.Data), n)
	}
	out := make([][]float32, n)
	dims := -1
	for i, d := range r.Data {
		idx := i
		if d.Index != nil {
			idx = *d.Index
		}
		if idx < 0 || idx >= n || out[idx] != nil {
			return nil, fmt.Errorf("data[%d]: index %d is out of range or repeated", i, idx)
		}
		if len(d.Embedding) == 0 || len(d.Embedding) > maxEmbedDims {
			return nil, fmt.Errorf("data[%d]: %d dimensions (want 1 to %d)", i, len(d.Embedding), maxEmbedDims)
		}
		if dims >= 0 && len(d.Embedding) != dims {
			return nil, fmt.Errorf("data[%d]: %d dimensions, data before had %d", i, len(d.Embedding), dims)
		}
		dims = len(d.Embedding)
		v := make([]float32, dims)
		for j, x := range d.Embedding {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("data[%d].embedding[%d] is not a finite number", i, j)
			}
			v[j] = float32(x)
		}
		out[idx] = v
	}
	return out, nil
}

// normalize scales v to unit length, so that cosine similarity is a dot
// product; nil for a vector without a direction (all zeros), which an
// endpoint may return for a text it knows no word of.
func normalize(v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 || math.IsNaN(sum) || math.IsInf(sum, 0) {
		return nil // no direction: nothing is similar to it
	}
	inv := float32(1 / math.Sqrt(sum))
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = x * inv
	}
	return out
}

// dot is the dot product of vectors of the same length.
func dot(a, b []float32) float64 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return float64(s)
}

func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
