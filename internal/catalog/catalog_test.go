package catalog_test

import (
	"context"
	"slices"
	"testing"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/catalog"
	"github.com/sluicehq/sluice/internal/discovery"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/sqlite"
)

var ctx = context.Background()

const shop = `{"openapi":"3.0.1","info":{"title":"Shop","version":"1"},"servers":[{"url":"https://shop.example.com/v1"}],
"paths":{"/orders":{"get":{"operationId":"listOrders","summary":"List orders","responses":{"200":{"description":"ok"}}}},
"/orders/{id}/refund":{"post":{"operationId":"refundOrder","summary":"Refund an order","parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],"responses":{"200":{"description":"ok"}}}}}}`

const guide = "# Returns\nItems may be returned within 30 days.\n\n# Warranty\nTwo years on electronics.\n"

func newCatalog(t *testing.T) *catalog.Service {
	t.Helper()
	st, err := sqlite.Open(ctx, sqlite.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	var specs []op.Spec
	for _, r := range op.Builtins() {
		specs = append(specs, r.Spec)
	}
	c := catalog.New(catalog.Config{Store: st, Operations: specs,
		Agents: func(context.Context) ([]string, error) { return []string{"translator"}, nil }})
	if err := c.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Import(ctx, "shop", "", "json", []byte(shop), "admin"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Import(ctx, "guide", store.KnowledgeText, "markdown", []byte(guide), "admin"); err != nil {
		t.Fatal(err)
	}
	return c
}

func ids(hits []discovery.Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Entry.ID)
	}
	return out
}

func TestGrantsDecideWhatIsFound(t *testing.T) {
	c := newCatalog(t)
	who := func(perms policy.Permissions) *account.Principal {
		return &account.Principal{ID: "a", Permissions: perms}
	}
	cases := []struct {
		name  string
		perms policy.Permissions
		query string
		want  string // an id that must be found ("" : nothing)
	}{
		{"whole API", policy.Permissions{APIs: []string{"shop"}}, "refund an order", "shop.refundOrder"},
		{"one operation found", policy.Permissions{APIs: []string{"shop.listOrders"}}, "list orders", "shop.listOrders"},
		{"no API grant", policy.Permissions{}, "refund an order", ""},
		{"knowledge", policy.Permissions{KnowledgeBases: []string{"guide"}}, "warranty electronics", "guide#1"},
		{"knowledge not granted", policy.Permissions{KnowledgeBases: []string{"other"}}, "warranty electronics", ""},
		{"operation", policy.Permissions{Operations: []string{"FilterData"}}, "keep items matching conditions", "op.FilterData"},
		{"agent", policy.Permissions{Agents: []string{"translator"}}, "translator", "agent.translator"},
		{"agent not granted", policy.Permissions{Agents: []string{"x"}}, "translator", ""},
	}
	for _, tc := range cases {
		got := ids(c.Search(ctx, who(tc.perms), tc.query, "", 5))
		if tc.want == "" {
			if len(got) != 0 {
				t.Errorf("%s: found %v", tc.name, got)
			}
			continue
		}
		if len(got) == 0 || got[0] != tc.want {
			t.Errorf("%s: got %v, want %s first", tc.name, got, tc.want)
		}
	}
	// A grant of one operation never shows the API's others.
	for _, id := range ids(c.Search(ctx, who(policy.Permissions{APIs: []string{"shop.listOrders"}}), "refund an order", "", 5)) {
		if id != "shop.listOrders" {
			t.Fatalf("one operation granted, %s found", id)
		}
	}
	// An apis grant implies the API's hosts.
	if h := c.HostsOf([]string{"shop.refundOrder"}); !slices.Equal(h, []string{"shop.example.com"}) {
		t.Fatalf("hosts: %v", h)
	}
	if h := c.HostsOf([]string{"nothing"}); len(h) != 0 {
		t.Fatalf("hosts of an unknown API: %v", h)
	}
	if !catalog.AllowsAPI(policy.Permissions{APIs: []string{"*"}}, "shop.x") || catalog.AllowsAPI(policy.Permissions{APIs: []string{"sho"}}, "shop.x") {
		t.Fatal("AllowsAPI")
	}
}

func TestImportReplaceDelete(t *testing.T) {
	c := newCatalog(t)
	all := &account.Principal{Permissions: policy.Permissions{APIs: []string{"*"}}}
	if n := len(c.APIs(all)); n != 2 {
		t.Fatalf("%d API entries", n)
	}
	info := c.List()
	if len(info) != 2 || info[0].Name != "guide" || info[0].Entries != 2 || info[1].Entries != 2 {
		t.Fatalf("list: %+v", info)
	}
	if _, err := c.Import(ctx, "shop", "", "json", []byte("not openapi"), "admin"); fault.From(err).Kind != fault.Invalid {
		t.Fatalf("bad document: %v", err)
	}
	if n := len(c.APIs(all)); n != 2 {
		t.Fatal("a refused import touched the index")
	}
	if err := c.Delete(ctx, "shop"); err != nil {
		t.Fatal(err)
	}
	if n := len(c.APIs(all)); n != 0 || len(c.HostsOf([]string{"shop"})) != 0 {
		t.Fatalf("after delete: %d entries", n)
	}
	if err := c.Delete(ctx, "shop"); fault.From(err).Kind != fault.NotFound {
		t.Fatalf("delete twice: %v", err)
	}
}

// The operator's shorthands merge over the built-in ones: one added ("ord"),
// one removed by an empty value ("msg": the built-in reads it as message).
func TestOperatorVocabulary(t *testing.T) {
	st, err := sqlite.Open(ctx, sqlite.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	const chat = `{"openapi":"3.0.1","info":{"title":"Chat","version":"1"},"servers":[{"url":"https://chat.example.com"}],
"paths":{"/messages":{"post":{"operationId":"postMessage","summary":"Post a message","responses":{"200":{"description":"ok"}}}}}}`
	search := func(cfg catalog.Config, query string) []string {
		cfg.Store, cfg.NoWordNet, cfg.NoWordVectors = st, true, true
		c := catalog.New(cfg)
		if err := c.Load(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Import(ctx, "chat", "", "json", []byte(chat), "admin"); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Import(ctx, "shop", "", "json", []byte(shop), "admin"); err != nil {
			t.Fatal(err)
		}
		return ids(c.Search(ctx, &account.Principal{ID: "a", Permissions: policy.Permissions{APIs: []string{"*"}}}, query, "", 1))
	}
	if got := search(catalog.Config{}, "send a msg"); len(got) != 1 || got[0] != "chat.postMessage" {
		t.Fatalf("built-in msg: %v", got)
	}
	if got := search(catalog.Config{Abbreviations: map[string]string{"MSG": ""}}, "send a msg"); len(got) != 0 {
		t.Fatalf("msg removed, found %v", got)
	}
	if got := search(catalog.Config{Abbreviations: map[string]string{"ord": "order"}}, "refund the ord"); len(got) != 1 || got[0] != "shop.refundOrder" {
		t.Fatalf("ord: %v", got)
	}
	if got := search(catalog.Config{Synonyms: [][]string{{"reimburse", "refund"}}}, "reimburse"); len(got) != 1 || got[0] != "shop.refundOrder" {
		t.Fatalf("reimburse: %v", got)
	}
}
