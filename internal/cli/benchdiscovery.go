package cli

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sluicehq/sluice/internal/discovery"
)

// discoveryBench is the output of `sluice bench discovery --json`.
type discoveryBench struct {
	Catalog      string            `json:"catalog"`
	Queries      string            `json:"queries"`
	Options      discovery.Options `json:"options"`
	IndexBuildMs float64           `json:"index_build_ms"`
	MeanSearchUs float64           `json:"mean_search_us"`
	// Embeddings is the model of a hybrid ranking ("": BM25 alone).
	Embeddings   string  `json:"embeddings,omitempty"`
	VectorWeight float64 `json:"vector_weight,omitempty"`
	// Learnt is the labeled file whose queries the index learnt from
	// (discovery.LabeledUsage) before the run, and how many of them.
	Learnt        string            `json:"learnt,omitempty"`
	LearntQueries int               `json:"learnt_queries,omitempty"`
	Report        *discovery.Report `json:"report"`
	Misses        []benchMiss       `json:"misses,omitempty"`
}

// benchMiss is a query whose relevant entries were not all in the top k,
// with what BM25 searched for (the terms and the expansions behind them).
type benchMiss struct {
	discovery.QueryResult
	Terms []discovery.QueryTerm `json:"terms"`
}

func newBenchDiscoveryCmd(io Stdio) *cobra.Command {
	var (
		catalogDir, queriesFile, split, weights string
		learnFile, learnSplit                   string
		k, embBatch                             int
		b, vectorWeight                         float64
		embTimeout                              time.Duration
		asJSON, misses                          bool
		embURL, embModel, embKeyEnv             string
	)
	// The ranking flags write straight into the options, from their
	// defaults, so --help shows the real default of each.
	opts := discovery.DefaultOptions()
	cmd := &cobra.Command{
		Use:   "discovery --catalog DIR --queries FILE",
		Short: "Measure discovery search: recall@k, MRR and the size of the capabilities answer on a labeled query set",
		Long: `Index every OpenAPI document (*.json, *.yaml, *.yml) of --catalog (an API is
named after its file, without the extension), run every query of --queries (JSON
lines: {"query": "...", "relevant": ["NAME.operationId", ...], "split": "train"|"heldout"|"fresh"})
and print recall@k and the mean reciprocal rank per split, and the mean size in
bytes of the capabilities answer (the JSON list of entries returned) with a query
(the top k) and without one (every entry).

Tune ranking on --split train only; the held-out split is for the final figures.
The shipped dataset is testdata/discovery (docs/discovery.md).

--learn FILE first teaches the index the queries of FILE's --learn-split (a
labeled file of the same form), as if each were an account's feedback that its
entries answered it: the words learnt from use (docs/discovery.md, "Learning
from use"). Figures of queries it learnt from are not a test; run another split.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if catalogDir == "" || queriesFile == "" {
				return fail(ExitInvalid, "bench discovery needs --catalog DIR and --queries FILE")
			}
			if k <= 0 {
				return fail(ExitInvalid, "--k must be positive, got %d", k)
			}
			if cmd.Flags().Changed("b") {
				opts.B, opts.FieldB = b, nil // one b for every field
			}
			if weights != "" {
				w, err := parseWeights(opts.Weights, weights)
				if err != nil {
					return fail(ExitInvalid, "--weights: %v", err)
				}
				opts.Weights = w
			}
			ix, err := discovery.NewIndex(opts)
			if err != nil {
				return fail(ExitInvalid, "%v", err)
			}
			entries, err := discovery.LoadCatalog(catalogDir)
			if err != nil {
				return fail(ExitInvalid, "%v", err)
			}
			qs, err := readLabeledFile(queriesFile)
			if err != nil {
				return fail(ExitInvalid, "%v", err)
			}
			qs, err = discovery.FilterSplit(qs, split)
			if err != nil {
				return fail(ExitInvalid, "--split: %v", err)
			}
			if len(qs) == 0 {
				return fail(ExitInvalid, "%s: no query in split %s", queriesFile, split)
			}
			var learnt []discovery.Labeled
			if learnFile != "" {
				if learnt, err = readLabeledFile(learnFile); err != nil {
					return fail(ExitInvalid, "--learn: %v", err)
				}
				if learnt, err = discovery.FilterSplit(learnt, learnSplit); err != nil {
					return fail(ExitInvalid, "--learn-split: %v", err)
				}
				if err := learnLabeled(ix, opts, entries, learnt); err != nil {
					return fail(ExitInvalid, "--learn: %s: %v", learnFile, err)
				}
			}
			search := func(query string, n int) []discovery.Hit { return ix.Search(query, nil, n) }
			var embedErr error // the first query the endpoint failed to embed
			vecWeight := 0.0
			start := time.Now()
			rounds := 20
			if embURL != "" {
				// Hybrid: every entry and query embedded by the endpoint, fused
				// with BM25 by reciprocal rank (as the server does).
				if embModel == "" {
					return fail(ExitInvalid, "--embeddings-url needs --embeddings-model")
				}
				if embTimeout < time.Second || embBatch < 1 {
					return fail(ExitInvalid, "--embeddings-timeout must be at least 1s and --embeddings-batch at least 1")
				}
				h := discovery.NewHybrid(ix, &discovery.OpenAIEmbedder{BaseURL: embURL, Model: embModel,
					APIKey: os.Getenv(embKeyEnv), Client: &http.Client{Timeout: embTimeout}, Timeout: embTimeout, MaxBatch: embBatch}, nil)
				if cmd.Flags().Changed("vector-weight") {
					if !(vectorWeight >= 0) || math.IsInf(vectorWeight, 0) {
						return fail(ExitInvalid, "--vector-weight must be a number >= 0, got %v", vectorWeight)
					}
					h.VectorWeight = vectorWeight
				}
				if err := h.Upsert(cmd.Context(), entries...); err != nil {
					return fail(ExitFailed, "embedding the catalog: %v", err)
				}
				search = func(query string, n int) []discovery.Hit {
					hits, err := h.SearchErr(cmd.Context(), query, nil, n)
					if err != nil && embedErr == nil {
						embedErr = fmt.Errorf("query %q: %v", query, err)
					}
					return hits
				}
				rounds = 1 // each search is a round trip to the endpoint
				vecWeight = h.VectorWeight
			} else if err := ix.Upsert(entries...); err != nil {
				return fail(ExitInvalid, "%v", err)
			}
			built := time.Since(start)
			rep, err := discovery.EvaluateWith(ix, search, qs, k)
			if err != nil {
				return fail(ExitInvalid, "%v", err)
			}
			if embedErr != nil {
				// A BM25 answer must not pass for a hybrid one.
				return fail(ExitFailed, "embedding a query: %v", embedErr)
			}
			// Latency of the answer an agent gets (top k), over the query set.
			start = time.Now()
			for range rounds {
				for _, q := range qs {
					search(q.Query, k)
				}
			}
			perSearch := time.Since(start) / time.Duration(rounds*len(qs))
			out := discoveryBench{
				Catalog: catalogDir, Queries: queriesFile, Options: opts, Embeddings: embModel, VectorWeight: vecWeight,
				IndexBuildMs: float64(built.Microseconds()) / 1000,
				MeanSearchUs: float64(perSearch.Nanoseconds()) / 1000,
				Report:       rep,
			}
			if learnFile != "" {
				out.Learnt, out.LearntQueries = learnFile, len(learnt)
			}
			if misses {
				for _, r := range rep.Results {
					if r.Recall < 1 {
						out.Misses = append(out.Misses, benchMiss{r, ix.Explain(r.Query)})
					}
				}
			}
			if asJSON {
				if !misses {
					out.Report.Results = nil
				}
				return writeJSON(io.Out, out)
			}
			writeDiscoveryBench(io.Out, &out)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&catalogDir, "catalog", "", "directory of OpenAPI documents")
	fl.StringVar(&queriesFile, "queries", "", "labeled queries, one JSON object a line")
	fl.IntVar(&k, "k", 5, "size of the answer (top k)")
	fl.StringVar(&split, "split", "all", "queries to run: train, heldout, fresh or all")
	fl.BoolVar(&asJSON, "json", false, "print the report as JSON")
	fl.StringVar(&learnFile, "learn", "", "labeled queries to learn from before the run, as feedback of accounts (default: none)")
	fl.StringVar(&learnSplit, "learn-split", "train", "the split of --learn to learn from: train, heldout, fresh or all")
	fl.BoolVar(&misses, "misses", false, "also print each query whose relevant entries are not all in the top k")
	fl.Float64Var(&opts.K1, "k1", opts.K1, "BM25 k1")
	fl.Float64Var(&b, "b", 0, "BM25 b for every field (default: b per field, as the index has it)")
	fl.StringVar(&weights, "weights", "", "field weights to change, e.g. name=3,summary=2,description=1,parameters=0.5,tags=1.5,path=1")
	fl.StringVar(&opts.Stemmer, "stemmer", opts.Stemmer, "porter2, porter, light or none")
	fl.Float64Var(&opts.SynonymWeight, "synonym-weight", opts.SynonymWeight, "weight of query synonyms, 0 to turn them off")
	fl.Float64Var(&opts.ValueWeight, "value-weight", opts.ValueWeight, "weight of the type words of values in a query (an email address searches for email), 0 to turn it off")
	fl.Float64Var(&opts.SourceWeight, "source-weight", opts.SourceWeight, "share of an API's own score for the query added to its operations, 0 to turn it off")
	fl.Float64Var(&opts.CompoundWeight, "compound-weight", opts.CompoundWeight, "weight of the parts of query words the index lacks (helpdesk: help desk) and of joined adjacent words (log in: login), 0 to turn it off")
	fl.Float64Var(&opts.WordNet.Weight, "wordnet-weight", opts.WordNet.Weight, "weight of WordNet words added for query words the index lacks, 0 to turn it off")
	fl.Float64Var(&opts.WordNet.MaxDF, "wordnet-max-df", opts.WordNet.MaxDF, "expand query words in at most this fraction of entries (0: only absent words)")
	fl.StringVar(&embURL, "embeddings-url", "", "rank hybrid: BM25 fused with the vectors of this OpenAI-compatible /v1/embeddings base URL (default: BM25 alone)")
	fl.StringVar(&embModel, "embeddings-model", "", "the embedding model (with --embeddings-url)")
	fl.Float64Var(&vectorWeight, "vector-weight", 1, "weight of the vector ranking in the fusion against BM25's 1 (with --embeddings-url)")
	fl.DurationVar(&embTimeout, "embeddings-timeout", 30*time.Second, "time bound of one request to the endpoint (with --embeddings-url)")
	fl.IntVar(&embBatch, "embeddings-batch", 64, "texts per request to the endpoint (with --embeddings-url)")
	fl.StringVar(&embKeyEnv, "embeddings-key-env", "", "the environment variable holding the endpoint's API key (with --embeddings-url)")
	fl.IntVar(&opts.WordNet.Senses, "wordnet-senses", opts.WordNet.Senses, "WordNet senses followed per word, most frequent first, 0 for all")
	fl.Float64Var(&opts.WordVectors.Weight, "word-vector-weight", opts.WordVectors.Weight, "weight of the index words whose GloVe vectors are closest to a query word the index lacks, 0 to turn it off")
	fl.Float64Var(&opts.WordVectors.MinSimilarity, "word-vector-min-similarity", opts.WordVectors.MinSimilarity, "cosine similarity an index word must reach to be added")
	fl.IntVar(&opts.WordVectors.MaxTerms, "word-vector-max-terms", opts.WordVectors.MaxTerms, "index words added per query word, the closest first")
	fl.Float64Var(&opts.WordVectors.MaxDF, "word-vector-max-df", opts.WordVectors.MaxDF, "expand query words in at most this fraction of entries (0: only absent words)")
	fl.Float64Var(&opts.WordVectors.AddedMaxDF, "word-vector-added-max-df", opts.WordVectors.AddedMaxDF, "add only index words in at most this fraction of entries (or in one)")
	return cmd
}

func readLabeledFile(path string) ([]discovery.Labeled, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("queries: %v", err)
	}
	defer f.Close()
	qs, err := discovery.ReadLabeled(f)
	if err != nil {
		return nil, fmt.Errorf("queries %s: %v", path, err)
	}
	return qs, nil
}

// learnLabeled teaches ix, before its entries are written, what the
// labeled queries qs say about them. A second index analyzes the queries:
// which words a query teaches depends on the entries.
func learnLabeled(ix *discovery.Index, opts discovery.Options, entries []discovery.Entry, qs []discovery.Labeled) error {
	analyzer, err := discovery.NewIndex(opts)
	if err != nil {
		return err
	}
	if err := analyzer.Upsert(entries...); err != nil {
		return err
	}
	usage, err := discovery.LabeledUsage(analyzer, qs)
	if err != nil {
		return err
	}
	for k, u := range usage {
		ix.SetUsage(k, u)
	}
	return nil
}

// parseWeights applies name=value pairs to w.
func parseWeights(w discovery.Weights, s string) (discovery.Weights, error) {
	fields := map[string]*float64{
		"name": &w.Name, "summary": &w.Summary, "description": &w.Description,
		"parameters": &w.Parameters, "tags": &w.Tags, "path": &w.Path, "usage": &w.Usage,
	}
	for _, pair := range strings.Split(s, ",") {
		name, value, ok := strings.Cut(strings.TrimSpace(pair), "=")
		p := fields[strings.ToLower(name)]
		if !ok || p == nil {
			return w, fmt.Errorf("%q: want FIELD=NUMBER with FIELD one of name, summary, description, parameters, tags, path, usage", pair)
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return w, fmt.Errorf("%q: %v", pair, err)
		}
		*p = v
	}
	return w, nil
}

func writeDiscoveryBench(w io.Writer, b *discoveryBench) {
	r := b.Report
	o := b.Options
	fmt.Fprintf(w, "catalog  %s: %d entries, index built in %.1f ms\n", b.Catalog, r.Entries, b.IndexBuildMs)
	fmt.Fprintf(w, "ranking  k1=%g b=%s stemmer=%s synonym-weight=%g expansion-weight=%g phrase-weight=%g value-weight=%g source-weight=%g compound-weight=%g weights name=%g summary=%g description=%g parameters=%g tags=%g path=%g usage=%g\n",
		o.K1, fieldB(o), o.Stemmer, o.SynonymWeight, o.ExpansionWeight, o.PhraseWeight, o.ValueWeight, o.SourceWeight, o.CompoundWeight, o.Weights.Name, o.Weights.Summary, o.Weights.Description, o.Weights.Parameters, o.Weights.Tags, o.Weights.Path, o.Weights.Usage)
	if wn := o.WordNet; wn.Weight > 0 {
		fmt.Fprintf(w, "wordnet  weight=%g max-df=%g senses=%d derived=%v hypernyms=%v hyponyms=%v max-terms=%d\n",
			wn.Weight, wn.MaxDF, wn.Senses, wn.Derived, wn.Hypernyms, wn.Hyponyms, wn.MaxTerms)
	} else {
		fmt.Fprintf(w, "wordnet  off\n")
	}
	if wv := o.WordVectors; wv.Weight > 0 {
		fmt.Fprintf(w, "vectors  weight=%g min-similarity=%g max-terms=%d max-df=%g added-max-df=%g (GloVe word vectors)\n", wv.Weight, wv.MinSimilarity, wv.MaxTerms, wv.MaxDF, wv.AddedMaxDF)
	} else {
		fmt.Fprintf(w, "vectors  off\n")
	}
	if b.Learnt != "" {
		fmt.Fprintf(w, "learnt   from %d queries of %s (their figures are not a test)\n", b.LearntQueries, b.Learnt)
	}
	if b.Embeddings != "" {
		fmt.Fprintf(w, "hybrid   BM25 fused (RRF) with the vectors of %s, vector weight %g\n", b.Embeddings, b.VectorWeight)
	}
	fmt.Fprintf(w, "\n%-8s %8s %10s %13s %7s %14s\n", "split", "queries", fmt.Sprintf("recall@%d", r.K), "95% interval", "MRR", "answer bytes")
	for _, f := range r.Figures {
		fmt.Fprintf(w, "%-8s %8d %10.3f   %.3f–%.3f %7.3f %14.0f\n", f.Split, f.Queries, f.RecallAtK, f.RecallCI95[0], f.RecallCI95[1], f.MRR, f.MeanAnswerBytes)
	}
	fmt.Fprintf(w, "(95%% interval: percentile bootstrap of recall@%d over the split's queries)\n", r.K)
	fmt.Fprintf(w, "\ncapabilities answer: %d bytes without a query, %.0f bytes on average with one (top %d): %.1fx smaller\n",
		r.FullAnswerBytes, r.QueryAnswerBytes, r.K, r.AnswerRatio)
	fmt.Fprintf(w, "search: %.1f µs per query (top %d, mean over the query set)\n", b.MeanSearchUs, r.K)
	for _, m := range b.Misses {
		fmt.Fprintf(w, "\nmiss [%s] %q\n  relevant %v (first at rank %d)\n  top      %v\n  terms   ", m.Split, m.Query, m.Relevant, m.FirstRank, m.Top)
		for _, t := range m.Terms {
			fmt.Fprintf(w, " %s", formatQueryTerm(t))
		}
		fmt.Fprintln(w)
	}
}

// formatQueryTerm writes a searched term as term×weight, with where an
// expansion came from and a mark on a term no entry holds:
// "car×0.25<automobiles:word_vectors", "automobil×1!".
func formatQueryTerm(t discovery.QueryTerm) string {
	s := t.Term
	if t.Weight != 1 {
		s += "×" + strconv.FormatFloat(t.Weight, 'g', 3, 64)
	}
	if t.Via != discovery.ViaQuery {
		s += "<"
		if t.From != "" {
			s += t.From + ":"
		}
		s += t.Via.String()
	}
	if t.DF == 0 {
		s += "!"
	}
	return s
}

// fieldB prints b, or b per field when the options set it.
func fieldB(o discovery.Options) string {
	if f := o.FieldB; f != nil {
		return fmt.Sprintf("(name=%g summary=%g description=%g parameters=%g tags=%g path=%g usage=%g)", f.Name, f.Summary, f.Description, f.Parameters, f.Tags, f.Path, f.Usage)
	}
	return strconv.FormatFloat(o.B, 'g', -1, 64)
}
