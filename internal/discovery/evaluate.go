package discovery

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// QueryResult is how one labeled query fared.
type QueryResult struct {
	Query       string   `json:"query"`
	Split       string   `json:"split"`
	Relevant    []string `json:"relevant"`
	Recall      float64  `json:"recall_at_k"`
	RR          float64  `json:"reciprocal_rank"`
	FirstRank   int      `json:"first_relevant_rank"` // 1-based; 0 when none was found at all
	Top         []string `json:"top"`                 // the IDs of the top k
	AnswerBytes int      `json:"answer_bytes"`        // size of the JSON list of the top k entries
}

// Figures are the means over one split.
type Figures struct {
	Split     string  `json:"split"`
	Queries   int     `json:"queries"`
	RecallAtK float64 `json:"recall_at_k"`
	// RecallCI95 is a 95 % interval for RecallAtK: the percentile bootstrap
	// over the split's queries (bootstrapRounds resamples, fixed seed, so
	// a report is reproducible). With 49 queries it spans about ±0.08:
	// what one query more or less means.
	RecallCI95      [2]float64 `json:"recall_at_k_ci95"`
	MRR             float64    `json:"mrr"`
	MeanAnswerBytes float64    `json:"mean_answer_bytes"`
}

// Report is the evaluation of a labeled query set against an index.
type Report struct {
	K       int       `json:"k"`
	Entries int       `json:"entries"`
	Figures []Figures `json:"figures"` // train, heldout, all (splits with no query are left out)
	// FullAnswerBytes is the size of the JSON list of every entry: the
	// capabilities answer without a query.
	FullAnswerBytes int `json:"full_answer_bytes"`
	// QueryAnswerBytes is the mean size of the answer to a query (top k).
	QueryAnswerBytes float64       `json:"query_answer_bytes"`
	AnswerRatio      float64       `json:"full_to_query_answer_ratio"` // FullAnswerBytes / QueryAnswerBytes
	Results          []QueryResult `json:"results"`
}

// Evaluate runs every query against ix and measures recall@k, the mean
// reciprocal rank (over the whole ranking: a relevant entry at rank 40
// counts 1/40) and the size of the answers. Every relevant ID must name an
// entry of the index, so a mislabeled query is an error, not a miss.
func Evaluate(ix *Index, queries []Labeled, k int) (*Report, error) {
	return EvaluateWith(ix, func(query string, n int) []Hit { return ix.Search(query, nil, n) }, queries, k)
}

// EvaluateWith is Evaluate with another ranking over ix's entries, such as
// a Hybrid's: search returns the best n hits of a query.
func EvaluateWith(ix *Index, search func(query string, n int) []Hit, queries []Labeled, k int) (*Report, error) {
	if k <= 0 {
		return nil, fmt.Errorf("evaluate: k must be positive, got %d", k)
	}
	all := ix.Entries(nil)
	known := make(map[string]bool, len(all))
	for _, e := range all {
		known[e.ID] = true
	}
	for _, q := range queries {
		for _, id := range q.Relevant {
			if !known[id] {
				return nil, fmt.Errorf("queries line %d: relevant id %q is not in the catalog", q.Line, id)
			}
		}
	}
	full, err := json.Marshal(all)
	if err != nil {
		return nil, err
	}
	rep := &Report{K: k, Entries: len(all), FullAnswerBytes: len(full)}
	for _, q := range queries {
		hits := search(q.Query, len(all))
		r := QueryResult{Query: q.Query, Split: q.Split, Relevant: q.Relevant}
		found := 0
		for i, h := range hits {
			if !slices.Contains(q.Relevant, h.Entry.ID) {
				continue
			}
			if r.FirstRank == 0 {
				r.FirstRank = i + 1
				r.RR = 1 / float64(i+1)
			}
			if i < k {
				found++
			}
		}
		r.Recall = float64(found) / float64(len(q.Relevant))
		top := hits[:min(k, len(hits))]
		answer := make([]Entry, len(top))
		for i, h := range top {
			answer[i] = h.Entry
			r.Top = append(r.Top, h.Entry.ID)
		}
		b, err := json.Marshal(answer)
		if err != nil {
			return nil, err
		}
		r.AnswerBytes = len(b)
		rep.Results = append(rep.Results, r)
	}
	for _, split := range []string{SplitTrain, SplitHeldout, SplitFresh, ""} {
		f := Figures{Split: split}
		if split == "" {
			f.Split = "all"
		}
		var recalls []float64
		for _, r := range rep.Results {
			if split != "" && r.Split != split {
				continue
			}
			recalls = append(recalls, r.Recall)
			f.Queries++
			f.RecallAtK += r.Recall
			f.MRR += r.RR
			f.MeanAnswerBytes += float64(r.AnswerBytes)
		}
		if f.Queries == 0 {
			continue
		}
		n := float64(f.Queries)
		f.RecallAtK, f.MRR, f.MeanAnswerBytes = f.RecallAtK/n, f.MRR/n, f.MeanAnswerBytes/n
		f.RecallCI95 = bootstrapCI95(recalls)
		rep.Figures = append(rep.Figures, f)
		if split == "" && f.MeanAnswerBytes > 0 {
			rep.QueryAnswerBytes = f.MeanAnswerBytes
			rep.AnswerRatio = float64(rep.FullAnswerBytes) / f.MeanAnswerBytes
		}
	}
	return rep, nil
}

// FilterSplit keeps the queries of one split ("all" or "" keeps all).
func FilterSplit(qs []Labeled, split string) ([]Labeled, error) {
	switch strings.ToLower(split) {
	case "", "all":
		return qs, nil
	case SplitTrain, SplitHeldout, SplitFresh:
	default:
		return nil, fmt.Errorf("split %q: want train, heldout, fresh or all", split)
	}
	var out []Labeled
	for _, q := range qs {
		if q.Split == split {
			out = append(out, q)
		}
	}
	return out, nil
}

// bootstrapRounds is how many resamples bootstrapCI95 draws.
const bootstrapRounds = 2000

// bootstrapCI95 returns the 2.5th and 97.5th percentiles of the mean of xs
// over bootstrapRounds resamples with replacement, drawn from a fixed seed.
func bootstrapCI95(xs []float64) [2]float64 {
	if len(xs) == 0 {
		return [2]float64{}
	}
	r := rand.New(rand.NewPCG(9, 49))
	means := make([]float64, bootstrapRounds)
	for i := range means {
		sum := 0.0
		for range xs {
			sum += xs[r.IntN(len(xs))]
		}
		means[i] = sum / float64(len(xs))
	}
	slices.Sort(means)
	return [2]float64{means[bootstrapRounds*25/1000], means[bootstrapRounds*975/1000-1]}
}
