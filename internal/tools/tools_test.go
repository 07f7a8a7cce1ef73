package tools_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/account"
	"github.com/sluicehq/sluice/internal/discovery"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/tools"
)

type fixed []tools.Tool

func (fixed) Handles(name string) bool { return name == "echo" }
func (f fixed) List(context.Context, *account.Principal) ([]tools.Tool, error) {
	return f, nil
}
func (fixed) Call(_ context.Context, _ *account.Principal, name string, args map[string]any, _ func(tools.Event)) (*tools.Result, error) {
	return &tools.Result{Success: true, Data: args}, nil
}

func TestListRanksAndFilters(t *testing.T) {
	box := tools.New(fixed{
		{Name: "op.FilterData", Description: "Keep the items of an array that match every condition", Tags: []string{"operation"}},
		{Name: "mcp.crm.listInvoices", Description: "List a customer's unpaid and paid invoices", Tags: []string{"mcp"}},
		{Name: "mcp.crm.addNote", Description: "Add a note to a customer", Tags: []string{"mcp"}},
		{Name: "echo", Description: "Echo the text back", Tags: []string{"test"}},
	})
	ctx := context.Background()
	all, _ := box.List(ctx, &account.Principal{}, tools.ListOptions{})
	if len(all) != 4 || all[0].Name != "echo" {
		t.Fatalf("all, by name: %v", all)
	}
	// Kind: the part of the name before its first dot.
	byKind, _ := box.List(ctx, &account.Principal{}, tools.ListOptions{Kind: "mcp"})
	if len(byKind) != 2 || byKind[0].Name != "mcp.crm.addNote" || byKind[1].Name != "mcp.crm.listInvoices" {
		t.Fatalf("kind mcp: %v", byKind)
	}
	if byKind, _ = box.List(ctx, &account.Principal{}, tools.ListOptions{Kind: "op", Query: "items"}); len(byKind) != 1 {
		t.Fatalf("kind op with a query: %v", byKind)
	}
	got, _ := box.List(ctx, &account.Principal{}, tools.ListOptions{Query: "customer invoices unpaid"})
	if len(got) == 0 || got[0].Name != "mcp.crm.listInvoices" {
		t.Fatalf("ranked: %v", got)
	}
	for _, tl := range got {
		if tl.Name == "echo" || tl.Name == "op.FilterData" {
			t.Fatalf("an unrelated tool matched: %v", got)
		}
	}
	// Tags and a query together: only tagged tools are ranked. (The
	// customer tools are tagged mcp; among these two, the query's word is
	// absent, and discovery's word vectors may still relate it to one:
	// customer data.)
	got, _ = box.List(ctx, &account.Principal{}, tools.ListOptions{Query: "customer", Tags: []string{"test", "operation"}})
	for _, tl := range got {
		if !slices.Contains(tl.Tags, "test") && !slices.Contains(tl.Tags, "operation") {
			t.Fatalf("tags and query: %v", got)
		}
	}
	got, _ = box.List(ctx, &account.Principal{}, tools.ListOptions{Query: "customer", Tags: []string{"mcp"}})
	if len(got) != 2 {
		t.Fatalf("tags and query: %v", got)
	}
	got, _ = box.List(ctx, &account.Principal{}, tools.ListOptions{Tags: []string{"mcp"}})
	if len(got) != 2 {
		t.Fatalf("tags: %v", got)
	}
	if _, err := box.Call(ctx, &account.Principal{}, "nope", nil, nil); fault.From(err).Kind != fault.NotFound {
		t.Fatalf("unknown tool: %v", err)
	}
	if r, err := box.Call(ctx, &account.Principal{}, "echo", map[string]any{"a": 1.0}, nil); err != nil || r.ToolName != "echo" || !r.Success {
		t.Fatalf("call: %+v %v", r, err)
	}
}

// RankWith: a listing ranks with the server's discovery options, so the
// operator's shorthands count there too.
func TestRankWith(t *testing.T) {
	box := tools.New(fixed{
		{Name: "mcp.crm.listInvoices", Description: "List a customer's unpaid and paid invoices", Tags: []string{"mcp"}},
		{Name: "echo", Description: "Echo the text back", Tags: []string{"test"}},
	})
	ctx := context.Background()
	if got, _ := box.List(ctx, &account.Principal{}, tools.ListOptions{Query: "zxinv"}); len(got) != 0 {
		t.Fatalf("defaults: %v", got)
	}
	o := discovery.DefaultOptions()
	o.Abbreviations = map[string]string{"zxinv": "invoices"}
	if err := box.RankWith(o); err != nil {
		t.Fatal(err)
	}
	bad := o
	bad.K1 = -1
	if err := box.RankWith(bad); err == nil || !strings.Contains(err.Error(), "k1") {
		t.Fatalf("bad options: %v", err)
	}
	if got, _ := box.List(ctx, &account.Principal{}, tools.ListOptions{Query: "zxinv"}); len(got) != 1 || got[0].Name != "mcp.crm.listInvoices" {
		t.Fatalf("with the shorthand: %v", got)
	}
}

func TestKindOf(t *testing.T) {
	for name, want := range map[string]string{"op.FilterData": "op", "workflow.execute": "workflow", "cap.billing/refund": "cap",
		"capability.decide": "cap", "agent.researcher": "agent", "mcp.github.search.issues": "mcp", "spell.x": "", "op": "op"} {
		if got := tools.KindOf(name); got != want {
			t.Errorf("KindOf(%q) = %q, want %q", name, got, want)
		}
	}
}
