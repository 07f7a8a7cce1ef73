package config

import (
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode"
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
	// Abbreviations are shorthands of the operator's users, each with the
	// words it stands for ("po": "purchase order"), merged over the built-in
	// ones (docs/discovery.md); an empty value removes a built-in one.
	Abbreviations map[string]string `yaml:"abbreviations"`
	// Synonyms are groups of words searched for each other, each a string
	// of words ("invoice bill statement"), added to the built-in groups.
	Synonyms []string `yaml:"synonyms"`
	// Learning is learning from use: accounts say which entry answered a
	// query (POST /api/v1/discovery/feedback) and the catalog finds it
	// with the query's words from then on (docs/discovery.md).
	Learning Learning `yaml:"learning"`
}

// Learning configures learning from use.
type Learning struct {
	Enabled bool `yaml:"enabled"`
	// Retention drops a word an account taught for an entry this long
	// after the account last taught it (0: never).
	Retention time.Duration `yaml:"retention"`
}

// Bounds of the operator's vocabulary.
const (
	maxAbbreviations   = 1000
	maxAbbreviationLen = 32
	maxExpansionLen    = 200
	maxSynonymGroups   = 1000
	maxSynonymWords    = 20
	maxSynonymWordLen  = 64
)

func (d *decoder) validateVocabulary(c Discovery) {
	if len(c.Abbreviations) > maxAbbreviations {
		d.bad("discovery.abbreviations", "at most %d shorthands, got %d", maxAbbreviations, len(c.Abbreviations))
	}
	for k, v := range c.Abbreviations {
		path := "discovery.abbreviations." + k
		switch {
		case k == "" || len(k) > maxAbbreviationLen || strings.IndexFunc(k, unicode.IsSpace) >= 0:
			d.bad(path, "a shorthand is one word of 1 to %d bytes, without spaces", maxAbbreviationLen)
		case len(v) > maxExpansionLen || strings.IndexFunc(v, unicode.IsControl) >= 0:
			d.bad(path, "the words it stands for: at most %d bytes, no control characters", maxExpansionLen)
		}
	}
	if len(c.Synonyms) > maxSynonymGroups {
		d.bad("discovery.synonyms", "at most %d groups, got %d", maxSynonymGroups, len(c.Synonyms))
	}
	for i, g := range c.Synonyms {
		path := fmt.Sprintf("discovery.synonyms[%d]", i)
		words := strings.Fields(g)
		if len(words) < 2 || len(words) > maxSynonymWords {
			d.bad(path, "a group is 2 to %d words separated by spaces, got %d", maxSynonymWords, len(words))
			continue
		}
		for _, w := range words {
			if len(w) > maxSynonymWordLen || strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' }) >= 0 {
				d.bad(path, "word %.70q: want letters, digits and hyphens, at most %d bytes", w, maxSynonymWordLen)
				break
			}
		}
	}
}

// Embeddings names an OpenAI-compatible /v1/embeddings endpoint; with one,
// ranking is hybrid (BM25 fused with vector similarity). Empty URL: BM25
// alone. The key is read from the environment variable APIKeyEnv, never
// from the file.
type Embeddings struct {
	URL       string `yaml:"url" redact:"url"`
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
	d.validateVocabulary(c)
	e := c.Embeddings
	d.durationIn("discovery.embeddings.timeout", e.Timeout, time.Second, 10*time.Minute)
	if r := c.Learning.Retention; r != 0 {
		d.durationIn("discovery.learning.retention", r, time.Hour, 10*365*24*time.Hour)
	}
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
