package config

import (
	"net/url"
	"strings"
	"time"
)

// Discovery configures the discovery index.
type Discovery struct {
	Embeddings Embeddings `yaml:"embeddings"`
	// WordNet widens query words the catalog lacks with related English
	// words (docs/discovery.md); off saves the thesaurus's memory (about
	// 19 MB) and its decoding at start (about 0.1 s).
	WordNet bool `yaml:"wordnet"`
	// WordVectors widens query words the catalog lacks with the catalog's
	// words whose GloVe vectors are closest (docs/discovery.md); off saves
	// the table's memory (about 10 MB) and its decoding at start (about
	// 0.2 s).
	WordVectors bool `yaml:"word_vectors"`
}

// Embeddings names an OpenAI-compatible /v1/embeddings endpoint; with one,
// ranking is hybrid (BM25 fused with vector similarity). Empty URL: BM25
// alone. The key is read from the environment variable APIKeyEnv, never
// from the file.
type Embeddings struct {
	URL       string `yaml:"url"`
	Model     string `yaml:"model"`
	APIKeyEnv string `yaml:"api_key_env"`
	// VectorWeight is the vector ranking's weight in the fusion against
	// BM25's 1 (weighted reciprocal rank fusion); models differ in how
	// far they can be trusted on a catalog (docs/discovery.md).
	VectorWeight float64 `yaml:"vector_weight"`
	// Timeout bounds one request to the endpoint, and Batch the texts it
	// carries: a model on a CPU embeds a batch of 64 in seconds, not
	// milliseconds.
	Timeout time.Duration `yaml:"timeout"`
	Batch   int           `yaml:"batch"`
}

func (d *decoder) validateDiscovery(c Discovery) {
	e := c.Embeddings
	d.durationIn("discovery.embeddings.timeout", e.Timeout, time.Second, 10*time.Minute)
	d.intIn("discovery.embeddings.batch", int64(e.Batch), 1, 2048)
	if !(e.VectorWeight >= 0 && e.VectorWeight <= 100) {
		d.bad("discovery.embeddings.vector_weight", "must be between 0 and 100, got %v", e.VectorWeight)
	}
	if e.URL == "" {
		return
	}
	u, err := url.Parse(e.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		d.bad("discovery.embeddings.url", "want an http(s) base URL without user info, such as http://127.0.0.1:11434")
	}
	if e.Model == "" {
		d.bad("discovery.embeddings.url", "needs discovery.embeddings.model")
	}
	if strings.ContainsAny(e.APIKeyEnv, " =") {
		d.bad("discovery.embeddings.api_key_env", "want the name of an environment variable")
	}
}
