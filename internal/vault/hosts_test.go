package vault_test

import (
	"context"
	"encoding/hex"
	"slices"
	"testing"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/vault"
)

// A credential bound to hosts shows them in its metadata, resolves with
// them, survives rotation with them, and does not open when its hosts were
// changed in the database alone; an unbound record (as earlier versions
// wrote) still opens.
func TestHostBinding(t *testing.T) {
	ctx := context.Background()
	recs := vault.NewMemoryRecords()
	k1, k2 := mustKey(t, 1), mustKey(t, 2)
	v := vault.NewSealed(recs, mustRing(t, k1), vault.Options{Clock: clock.Real{}, CacheSize: -1})
	md, err := v.Put(ctx, vault.Entry{ID: "gh", Type: "bearer-token", Hosts: []string{"API.github.com", "uploads.github.com:443"},
		Value: vault.NewPlaintext(secretValue)})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"api.github.com", "uploads.github.com:443"}
	if !slices.Equal(md.Hosts, want) {
		t.Fatalf("metadata hosts %q, want %q", md.Hosts, want)
	}
	if list, _ := v.List(ctx); len(list) != 1 || !slices.Equal(list[0].Hosts, want) {
		t.Fatalf("list %+v", list)
	}
	sec, err := v.Resolve(ctx, "gh")
	if err != nil || !slices.Equal(sec.Hosts, want) || sec.Value != secretValue {
		t.Fatalf("resolved %v %q: %v", sec, sec.Hosts, err)
	}
	if hosts, ok, err := v.BoundHosts(ctx, "gh"); err != nil || !ok || !slices.Equal(hosts, want) {
		t.Fatalf("BoundHosts %q %v %v", hosts, ok, err)
	}
	if _, ok, _ := v.BoundHosts(ctx, "nope"); ok {
		t.Fatal("an unknown id has no binding")
	}

	// Unbound: metadata shows [], the value opens.
	md, err = v.Put(ctx, vault.Entry{ID: "old", Type: "api-key", Value: vault.NewPlaintext("old-value-1234")})
	if err != nil || md.Hosts == nil || len(md.Hosts) != 0 {
		t.Fatalf("unbound metadata %+v %v", md, err)
	}
	if sec, err := v.Resolve(ctx, "old"); err != nil || sec.Hosts != nil {
		t.Fatalf("unbound resolve %v %v", sec.Hosts, err)
	}

	// Rotation keeps the binding and the record opens under the new key.
	v2 := vault.NewSealed(recs, mustRing(t, k2, k1), vault.Options{Clock: clock.Real{}, CacheSize: -1})
	if rep, err := v2.Rotate(ctx); err != nil || rep.Resealed != 2 {
		t.Fatalf("rotate %+v %v", rep, err)
	}
	if sec, err := v2.Resolve(ctx, "gh"); err != nil || !slices.Equal(sec.Hosts, want) {
		t.Fatalf("after rotation %q %v", sec.Hosts, err)
	}

	// A binding widened or removed in the database alone does not open.
	for _, hosts := range [][]string{nil, {"api.github.com", "evil.example.com", "uploads.github.com:443"}} {
		rec, _, _ := recs.Get(ctx, "gh")
		rec.Hosts = hosts
		_ = recs.Put(ctx, rec)
		if _, err := v2.Resolve(ctx, "gh"); fault.KindOf(err) != fault.Internal {
			t.Fatalf("hosts %q changed behind the vault: got %v, want an internal error", hosts, err)
		}
	}

	if _, err := v.Put(ctx, vault.Entry{ID: "x", Type: "api-key", Hosts: []string{"*"}, Value: vault.NewPlaintext("x-value-1234")}); fault.KindOf(err) != fault.Invalid {
		t.Fatalf("binding to * must be refused, got %v", err)
	}
}

// A record sealed by a version without host binding (these bytes were made
// by the vault at commit c4f65f8 with mustKey(t, 7)) opens unbound.
func TestRecordOfEarlierVersionOpensUnbound(t *testing.T) {
	ctx := context.Background()
	unhex := func(s string) []byte {
		b, err := hex.DecodeString(s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	recs := vault.NewMemoryRecords()
	_ = recs.Put(ctx, vault.Record{ID: "legacy", Type: "bearer-token", KeyID: "a333034a9e025d78",
		Nonce:      unhex("20f3e1068ce2af099d2c748b"),
		Ciphertext: unhex("7f4ffa1adfa0e79957613d7326924e7fdf036339d603c70b24ae2299c35c2f7a8c3f")})
	v := vault.NewSealed(recs, mustRing(t, mustKey(t, 7)), vault.Options{Clock: clock.Real{}})
	sec, err := v.Resolve(ctx, "legacy")
	if err != nil || sec.Value != "legacy-secret-0042" || sec.Hosts != nil {
		t.Fatalf("resolved %q %q: %v", sec.Value, sec.Hosts, err)
	}
	if md, _ := v.Describe(ctx, "legacy"); md.Hosts == nil || len(md.Hosts) != 0 {
		t.Fatalf("metadata hosts %q, want []", md.Hosts)
	}
}
