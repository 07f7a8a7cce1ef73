package discovery_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/discovery"
)

// vocabulary of the synthetic entries: API words, drawn with a Zipf law so
// that a few words are common and most are rare, as in real catalogs.
var vocabulary = strings.Fields(`account activity address agent alert analytics api archive
attachment audit balance barcode billing board booking calendar campaign card carrier
channel charge chat checkout claim comment company contact contract coupon credit
customer dashboard deal delivery department device discount dispute document draft
email employee event expense export file filter folder forecast funnel group holiday
identity incident inventory invitation invoice issue job key label lead leave link
location log mailbox manifest map meeting member message metric note notification order
organization page parcel password payment payout permission pickup pipeline plan
policy price product project purchase quota rate receipt refund release reminder
report request reservation return review role room route schedule search segment
sender session shipment signature sku sprint status stock subscription supplier survey
tag task tax team template ticket token tracking transfer trial user usage vendor
version warehouse weather webhook workflow list get create update delete send cancel
approve assign export import merge restore share sync track upload download verify`)

func synthetic(n int) []discovery.Entry {
	r := rand.New(rand.NewPCG(1, 2))
	z := rand.NewZipf(r, 1.1, 4, uint64(len(vocabulary)-1))
	words := func(k int) string {
		w := make([]string, k)
		for i := range w {
			w[i] = vocabulary[z.Uint64()]
		}
		return strings.Join(w, " ")
	}
	kinds := []discovery.Kind{discovery.KindOperation, discovery.KindOperation, discovery.KindOperation, discovery.KindTool, discovery.KindCapability, discovery.KindAgent}
	es := make([]discovery.Entry, n)
	for i := range es {
		src := fmt.Sprintf("api%03d", i/40)
		name := vocabulary[r.IntN(len(vocabulary))] + strings.Title(vocabulary[r.IntN(len(vocabulary))]) //nolint:staticcheck // ASCII words
		es[i] = discovery.Entry{
			Kind:        kinds[i%len(kinds)],
			ID:          fmt.Sprintf("%s.%s%d", src, name, i),
			Source:      src,
			Name:        name,
			Summary:     words(5),
			Description: words(25),
			URL:         "https://" + src + ".example.com/v1/" + strings.ReplaceAll(words(2), " ", "/") + "/{id}",
			Parameters:  []discovery.Param{{Name: "id", Description: words(4)}, {Name: "limit", Description: words(3)}},
			Tags:        []string{vocabulary[r.IntN(len(vocabulary))]},
			Permission:  src,
		}
	}
	return es
}

var benchQueries = []string{
	"find the customer's unpaid invoices",
	"refund the last payment of a customer",
	"schedule a meeting with the team next week",
	"which products are low in stock at the warehouse",
	"track the shipment of order 42",
	"reset the password of a user account",
}

// BenchmarkSearch10k: one search (top 5) over 10,000 synthetic entries,
// with a permission filter that lets half the sources through. Goal < 5 ms.
func BenchmarkSearch10k(b *testing.B) { benchSearch10k(b, discovery.DefaultOptions()) }

// BenchmarkSearch10kNoFilter is the same search without a filter.
func BenchmarkSearch10kNoFilter(b *testing.B) {
	ix := discovery.New()
	if err := ix.Upsert(synthetic(10000)...); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		ix.Search(benchQueries[i%len(benchQueries)], nil, 5)
	}
}

// BenchmarkIndexBuild10k: analyzing and indexing 10,000 entries at once.
func BenchmarkIndexBuild10k(b *testing.B) {
	es := synthetic(10000)
	b.ReportAllocs()
	for b.Loop() {
		ix := discovery.New()
		if err := ix.Upsert(es...); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUpsertOne10k: replacing one entry in an index of 10,000 (its
// segment of 40 entries is rebuilt, the others are shared).
func BenchmarkUpsertOne10k(b *testing.B) {
	es := synthetic(10000)
	ix := discovery.New()
	if err := ix.Upsert(es...); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		upsertChanged(b, ix, es[i%len(es)])
	}
}

// upsertChanged writes e again with its summary changed: one write that
// replaces an entry.
func upsertChanged(b *testing.B, ix *discovery.Index, e discovery.Entry) {
	e.Summary += " changed"
	if err := ix.Upsert(e); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkSearchDataset: one search over the shipped 323-operation catalog.
func BenchmarkSearchDataset(b *testing.B) {
	es, qs := loadDataset(b)
	ix := discovery.New()
	if err := ix.Upsert(es...); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		ix.Search(qs[i%len(qs)].Query, nil, 5)
	}
}

// BenchmarkSearch10kThirdRound compares, in one run, the shipped ranking
// with the same search without the third round's additions (value words,
// source context, compounds, WordNet): what they cost.
func BenchmarkSearch10kThirdRound(b *testing.B) {
	without := discovery.DefaultOptions()
	without.ValueWeight, without.SourceWeight, without.CompoundWeight, without.WordNet.Weight = 0, 0, 0, 0
	for _, c := range []struct {
		name string
		o    discovery.Options
	}{{"shipped", discovery.DefaultOptions()}, {"without", without}} {
		b.Run(c.name, func(b *testing.B) { benchSearch10k(b, c.o) })
	}
}

// benchSearch10k times searches (top 5, a filter refusing half the
// sources) over 10,000 synthetic entries ranked with o.
func benchSearch10k(b *testing.B, o discovery.Options) {
	ix, err := discovery.NewIndex(o)
	if err != nil {
		b.Fatal(err)
	}
	if err := ix.Upsert(synthetic(10000)...); err != nil {
		b.Fatal(err)
	}
	benchSearchFiltered(b, ix)
}

// benchSearchFiltered times searches of ix (top 5) with a filter refusing
// half the synthetic sources.
func benchSearchFiltered(b *testing.B, ix *discovery.Index) {
	filter := func(e discovery.Entry) bool { return e.Permission[len(e.Permission)-1]%2 == 0 }
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if len(ix.Search(benchQueries[i%len(benchQueries)], filter, 5)) == 0 {
			b.Fatal("no hit")
		}
	}
}
