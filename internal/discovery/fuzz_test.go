package discovery

import (
	"bytes"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"getUserById", "HTTPServerError", "/users/{id}/invoices", "customer's unpaid invoices",
		"Ünïcode Straße", "\xff\xfe", "a_b-c.d", strings.Repeat("Ab", 100), "ǅǈ ǲ", "123abcDEF456"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, stem := range []func(string) string{stemPorter2, stemPorter, stemLight, nil} {
			for _, tok := range appendTokens(nil, s, stem) {
				if tok == "" || len(tok) > maxTokenBytes || !utf8.ValidString(tok) {
					t.Fatalf("token %q of %q", tok, s)
				}
				for _, r := range tok {
					if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
						t.Fatalf("token %q of %q holds %q", tok, s, r)
					}
				}
			}
		}
	})
}

func FuzzStem(f *testing.F) {
	for _, s := range []string{"generalizations", "caresses", "sky", "eed", "ying", "bled", "ational"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, stem := range []func(string) string{stemPorter2, stemPorter, stemLight} {
			out := stem(s)
			if len(out) > len(s)+1 { // step 1b may add an e after removing ed/ing, never more
				t.Fatalf("stem(%q) = %q grows", s, out)
			}
		}
	})
}

func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{`kind:operation tag:"Sales Ops" api:crm -archived refund`, `"unterminated kind:`, `-`, `::`, `tag:`,
		strings.Repeat("word ", 2000), `source:"a b" "kind:agent"`, "invoices of mice deleted", strings.Repeat("run ", 100)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := parseQuery(s, stemPorter)
		if len(q.Terms) > MaxQueryTerms {
			t.Fatalf("%d terms", len(q.Terms))
		}
		seen := map[string]bool{}
		for _, term := range q.Terms {
			if seen[term] || term == "" {
				t.Fatalf("term %q repeated or empty in %q", term, s)
			}
			seen[term] = true
		}
		// A parsed query always runs.
		ix := New()
		if err := ix.Upsert(Entry{Kind: KindTool, ID: "t", Name: s, Tags: []string{s}, Source: s}); err != nil {
			t.Fatal(err)
		}
		ix.SearchQuery(q, nil, 3)
		// And with the WordNet and word vector expansions (of every word,
		// present or not), value words and source context, on an index that
		// holds the query's own words (so related words can be found in it).
		o := DefaultOptions()
		o.WordNet.Weight, o.WordNet.Hypernyms, o.WordNet.Hyponyms, o.WordNet.Senses = 0.5, true, true, 0
		o.WordVectors.MaxDF, o.WordVectors.MinSimilarity = 1, 0.3
		wix, err := NewIndex(o)
		if err != nil {
			t.Fatal(err)
		}
		if err := wix.Upsert(Entry{Kind: KindTool, ID: "t", Name: "bill statement", Summary: s},
			Entry{Kind: KindOperation, ID: "api.op", Source: "api", Name: "sendEmail", Description: s}); err != nil {
			t.Fatal(err)
		}
		for _, h := range wix.Search(s, nil, 3) {
			if h.Score < 0 || h.Score != h.Score {
				t.Fatalf("score %v for %q", h.Score, s)
			}
		}
	})
}

func FuzzFromOpenAPI(f *testing.F) {
	f.Add([]byte("openapi: 3.0.0\ninfo: {title: x, version: '1'}\npaths:\n  /a/{id}:\n    get:\n      operationId: getA\n      parameters: [{name: id, in: path, required: true, schema: {type: string}}]\n      responses: {'200': {description: ok}}\n"))
	f.Add([]byte(`{"openapi":"3.1.0","info":{"title":"x","version":"1"},"paths":{"/p":{"post":{"requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/S"}}}},"responses":{"200":{"description":"ok"}}}}},"components":{"schemas":{"S":{"type":"object","properties":{"a":{"type":"string"}}}}}}`))
	f.Add([]byte("openapi: 3.0.0\npaths: {/a: {get: {responses: {'200': {$ref: 'http://example.com/x'}}}}}"))
	f.Add([]byte(`{"openapi":"3.0.0","paths":{"/a":{"$ref":"#/paths/~1a"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		es, err := FromOpenAPI("api", data)
		if err != nil {
			return
		}
		for _, e := range es {
			if e.Kind != KindOperation || !strings.HasPrefix(e.ID, "api.") || e.Source != "api" {
				t.Fatalf("entry %+v", e)
			}
		}
	})
}

func FuzzReadLabeled(f *testing.F) {
	f.Add([]byte(`{"query":"find invoices","relevant":["billing.listInvoices"],"split":"train"}` + "\n\n" + `{"query":"x","relevant":["a.b"]}`))
	f.Add([]byte(`{"query":"","relevant":[]}`))
	f.Add([]byte(`{"query":"q","relevant":["a"],"extra":1}`))
	f.Add([]byte(`{"query":"q","relevant":["a"]} {}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		qs, err := ReadLabeled(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, q := range qs {
			if strings.TrimSpace(q.Query) == "" || len(q.Relevant) == 0 || (q.Split != SplitTrain && q.Split != SplitHeldout && q.Split != SplitFresh) || q.Line < 1 {
				t.Fatalf("accepted %+v", q)
			}
		}
	})
}

func FuzzDecodeEmbeddings(f *testing.F) {
	f.Add([]byte(`{"data":[{"index":0,"embedding":[0.1,0.2]},{"index":1,"embedding":[0.3,0.4]}]}`), 2)
	f.Add([]byte(`{"data":[{"embedding":[1e308,1e308]}]}`), 1)
	f.Add([]byte(`{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[1]}]}`), 2)
	f.Fuzz(func(t *testing.T, body []byte, n int) {
		if n < 0 || n > 1000 {
			return
		}
		vecs, err := DecodeEmbeddings(body, n)
		if err != nil {
			return
		}
		if len(vecs) != n {
			t.Fatalf("%d vectors for %d", len(vecs), n)
		}
		for _, v := range vecs {
			if len(v) == 0 || len(v) != len(vecs[0]) {
				t.Fatalf("dimensions %d vs %d", len(v), len(vecs[0]))
			}
			normalize(v)
		}
	})
}

// FuzzLearn: whatever a caller sends as feedback, the words learnt are
// analyzed terms, each once, words the catalog or English knows and never
// a token, and setting them as usage keeps the index searchable and the
// entry findable by them.
func FuzzLearn(f *testing.F) {
	for _, s := range []string{"nudge the customer about the overdue invoice", "sk_live_Zx8Qw3Lk9Vb2Nm4Rt7Yp refund",
		"jane@example.com 4521 tmrw", "kind:operation -refund annul", strings.Repeat("giraffe ", 500), "\xff\xfe ǅǈ", ""} {
		f.Add(s)
	}
	ix := New()
	if err := ix.Upsert(Entry{Kind: KindOperation, ID: "billing.remind", Source: "billing", Name: "sendReminder", Summary: "Send a payment reminder"},
		Entry{Kind: KindOperation, ID: "billing.refund", Source: "billing", Name: "refundPayment", Summary: "Refund a payment"}); err != nil {
		f.Fatal(err)
	}
	key := Key{KindOperation, "billing.remind"}
	f.Fuzz(func(t *testing.T, s string) {
		words := ix.LearnableTerms(s)
		seen := map[string]bool{}
		for _, w := range words {
			if !isTerm(w) || seen[w] || len(words) > MaxQueryTerms {
				t.Fatalf("learnt %q of %q (%v)", w, s, words)
			}
			seen[w] = true
		}
		for _, w := range words {
			// A word of the catalog or of English, never a token.
			if tokenLike(w) || ix.cur.Load().df(w) == 0 && !ix.knownWord(w) {
				t.Fatalf("learnt %q of %q: not a known word", w, s)
			}
		}
		u := Usage{}
		for _, w := range words {
			u[w] = 1
		}
		ix.SetUsage(key, u)
		if len(words) > 0 && len(ix.Search(strings.Join(words, " "), nil, 2)) == 0 {
			t.Fatalf("nothing found by the learnt words %v", words)
		}
		ix.SetUsage(key, nil)
	})
}
