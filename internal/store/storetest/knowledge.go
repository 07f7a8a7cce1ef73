package storetest

import (
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

func testKnowledgeBases(t *testing.T, s store.Store) {
	kb := store.KnowledgeBase{Name: "crm", Kind: store.KnowledgeOpenAPI, Format: "yaml", Document: []byte("openapi: 3.0.1\n"), Checksum: "sha256:aa", CreatedBy: "admin"}
	got, err := s.PutKnowledgeBase(ctx, kb)
	must(t, err)
	if got.CreatedAt.IsZero() || got.UpdatedAt.IsZero() {
		t.Fatalf("times: %+v", got)
	}
	kb2 := kb
	kb2.Document, kb2.Checksum = []byte("openapi: 3.1.0\n"), "sha256:bb"
	replaced, err := s.PutKnowledgeBase(ctx, kb2)
	must(t, err)
	if !replaced.CreatedAt.Equal(got.CreatedAt) {
		t.Fatalf("a replaced base lost its creation time: %v vs %v", replaced.CreatedAt, got.CreatedAt)
	}
	_, err = s.PutKnowledgeBase(ctx, store.KnowledgeBase{Name: "guide", Kind: store.KnowledgeText, Format: "markdown", Document: []byte("# Refunds\n"), CreatedBy: "admin"})
	must(t, err)
	g, err := s.GetKnowledgeBase(ctx, "crm")
	must(t, err)
	if string(g.Document) != "openapi: 3.1.0\n" || g.Checksum != "sha256:bb" || g.Kind != store.KnowledgeOpenAPI || g.Format != "yaml" {
		t.Fatalf("get: %+v", g)
	}
	list, err := s.ListKnowledgeBases(ctx)
	must(t, err)
	if len(list) != 2 || list[0].Name != "crm" || list[1].Name != "guide" || string(list[1].Document) != "# Refunds\n" {
		t.Fatalf("list: %+v", list)
	}
	must(t, s.DeleteKnowledgeBase(ctx, "guide"))
	wantKind(t, s.DeleteKnowledgeBase(ctx, "guide"), fault.NotFound, "deleting twice")
	_, err = s.GetKnowledgeBase(ctx, "guide")
	wantKind(t, err, fault.NotFound, "a deleted base")
	for _, bad := range []store.KnowledgeBase{
		{Name: "", Kind: "text", Document: []byte("x")},
		{Name: "a.b", Kind: "text", Document: []byte("x")},
		{Name: "x", Kind: "pdf", Document: []byte("x")},
		{Name: "x", Kind: "text"},
		{Name: "x", Kind: "text", Document: []byte(strings.Repeat("x", store.MaxKnowledgeDocumentBytes+1))},
	} {
		_, err := s.PutKnowledgeBase(ctx, bad)
		wantKind(t, err, fault.Invalid, "bad knowledge base "+bad.Name)
	}
}
