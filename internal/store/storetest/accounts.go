package storetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/store"
)

func testAccounts(t *testing.T, s store.Store) {
	perms := policy.Permissions{Operations: []string{"ApiCall", "FilterData"}, Hosts: []string{"api.example.com"},
		Credentials: []string{"gh"}, CapabilityLevel: policy.LevelElevated}
	created, err := s.CreateAccount(ctx, store.Account{ID: "acct-1", Name: "One", Permissions: perms,
		Limits: json.RawMessage(`{"maxOperations":50}`)})
	must(t, err)
	if created.CreatedAt.IsZero() || !created.CreatedAt.Equal(created.UpdatedAt) {
		t.Fatalf("times not set: %+v", created)
	}
	got, err := s.GetAccount(ctx, "acct-1")
	must(t, err)
	if !reflect.DeepEqual(got.Permissions, perms) || got.Name != "One" || got.Disabled ||
		!rawEq(got.Limits, json.RawMessage(`{"maxOperations":50}`)) || !got.CreatedAt.Equal(created.CreatedAt) {
		t.Fatalf("got %+v, created %+v", got, created)
	}

	_, err = s.CreateAccount(ctx, store.Account{ID: "acct-1", Name: "again"})
	wantKind(t, err, fault.Conflict, "duplicate account")
	_, err = s.GetAccount(ctx, "nobody")
	wantKind(t, err, fault.NotFound, "missing account")

	name := "Renamed"
	newPerms := policy.Permissions{Operations: []string{"*"}}
	upd, err := s.UpdateAccount(ctx, "acct-1", store.AccountUpdate{Name: &name, Permissions: &newPerms})
	must(t, err)
	if upd.Name != "Renamed" || !reflect.DeepEqual(upd.Permissions, newPerms) || !rawEq(upd.Limits, json.RawMessage(`{"maxOperations":50}`)) {
		t.Fatalf("update: %+v", upd)
	}
	if upd.UpdatedAt.Before(upd.CreatedAt) {
		t.Errorf("updated before created: %+v", upd)
	}
	upd, err = s.UpdateAccount(ctx, "acct-1", store.AccountUpdate{Limits: json.RawMessage(`null`)})
	must(t, err)
	if upd.Limits != nil || upd.Name != "Renamed" {
		t.Fatalf("clearing limits: %+v", upd)
	}
	_, err = s.UpdateAccount(ctx, "nobody", store.AccountUpdate{Name: &name})
	wantKind(t, err, fault.NotFound, "update of a missing account")

	// Names are unique (409 naming the name); "" may repeat; an account
	// may be "renamed" to its own name.
	_, err = s.CreateAccount(ctx, store.Account{ID: "acct-2", Name: "Renamed"})
	wantKind(t, err, fault.Conflict, "a second account of a name")
	if fe := fault.From(err); !strings.Contains(fe.Message, `an account named "Renamed" already exists`) {
		t.Errorf("name conflict message: %q", fe.Message)
	}
	_, err = s.CreateAccount(ctx, store.Account{ID: "acct-2", Name: "Two"})
	must(t, err)
	_, err = s.UpdateAccount(ctx, "acct-2", store.AccountUpdate{Name: &name})
	wantKind(t, err, fault.Conflict, "a rename onto another account's name")
	_, err = s.UpdateAccount(ctx, "acct-1", store.AccountUpdate{Name: &name})
	must(t, err)
	for _, id := range []string{"acct-e1", "acct-e2"} {
		_, err = s.CreateAccount(ctx, store.Account{ID: id})
		must(t, err)
	}

	must(t, s.DisableAccount(ctx, "acct-1"))
	must(t, s.DisableAccount(ctx, "acct-1"))
	got, err = s.GetAccount(ctx, "acct-1")
	must(t, err)
	if !got.Disabled {
		t.Fatal("not disabled")
	}
	no := false
	upd, err = s.UpdateAccount(ctx, "acct-1", store.AccountUpdate{Disabled: &no})
	must(t, err)
	if upd.Disabled {
		t.Fatal("not enabled again")
	}
	wantKind(t, s.DisableAccount(ctx, "nobody"), fault.NotFound, "disable a missing account")

	bad := []store.Account{
		{ID: ""}, {ID: "has space"}, {ID: "../etc"}, {ID: "-flag"}, {ID: strings.Repeat("a", store.MaxIDBytes+1)},
		{ID: "ok", Name: "ctl\x01"}, {ID: "ok", Name: strings.Repeat("n", store.MaxNameBytes+1)},
		{ID: "ok", Limits: json.RawMessage(`{not json`)},
	}
	for _, a := range bad {
		_, err := s.CreateAccount(ctx, a)
		wantKind(t, err, fault.Invalid, fmt.Sprintf("account %.40q/%.20q", a.ID, a.Name))
	}
	ctl := "bad\nname"
	_, err = s.UpdateAccount(ctx, "acct-1", store.AccountUpdate{Name: &ctl})
	wantKind(t, err, fault.Invalid, "update with a control character")
}

func testAccountPaging(t *testing.T, s store.Store) {
	const n = 25
	for i := range n {
		mkAccount(t, s, fmt.Sprintf("acct-%02d", n-1-i))
	}
	var ids []string
	cursor := ""
	for pages := 0; ; pages++ {
		if pages > n {
			t.Fatal("paging does not end")
		}
		page, next, err := s.ListAccounts(ctx, store.Page{Cursor: cursor, Limit: 7})
		must(t, err)
		if len(page) > 7 {
			t.Fatalf("page of %d", len(page))
		}
		for _, a := range page {
			ids = append(ids, a.ID)
		}
		if next == "" {
			break
		}
		cursor = next
	}
	if len(ids) != n {
		t.Fatalf("listed %d accounts, want %d: %v", len(ids), n, ids)
	}
	for i, id := range ids {
		if id != fmt.Sprintf("acct-%02d", i) {
			t.Fatalf("order: %v", ids)
		}
	}
	all, next, err := s.ListAccounts(ctx, store.Page{})
	must(t, err)
	if len(all) != n || next != "" {
		t.Fatalf("default page: %d accounts, next %q", len(all), next)
	}
	_, _, err = s.ListAccounts(ctx, store.Page{Limit: store.MaxPageSize + 1})
	wantKind(t, err, fault.Invalid, "page over the limit")
	_, _, err = s.ListAccounts(ctx, store.Page{Limit: -1})
	wantKind(t, err, fault.Invalid, "negative page")
}

func testAPIKeys(t *testing.T, s store.Store) {
	mkAccount(t, s, "alice")
	mkAccount(t, s, "bob")
	hash := bytes.Repeat([]byte{0xab}, 32)
	exp := time.Now().Add(time.Hour).UTC().Truncate(time.Microsecond)
	k, err := s.AddAPIKey(ctx, store.APIKey{ID: "key-1", AccountID: "alice", Hash: hash, Prefix: "sk_ab12", ExpiresAt: &exp})
	must(t, err)
	if k.CreatedAt.IsZero() || !k.Active(time.Now()) || k.Active(exp.Add(time.Second)) {
		t.Fatalf("added key: %+v", k)
	}
	fk, acct, err := s.FindAPIKey(ctx, hash)
	must(t, err)
	if fk.ID != "key-1" || fk.AccountID != "alice" || acct.ID != "alice" || !bytes.Equal(fk.Hash, hash) ||
		fk.Prefix != "sk_ab12" || fk.ExpiresAt == nil || !fk.ExpiresAt.Equal(exp) || fk.RevokedAt != nil {
		t.Fatalf("found %+v of %+v", fk, acct)
	}
	if !reflect.DeepEqual(acct.Permissions.Operations, []string{"ApiCall"}) {
		t.Fatalf("account permissions with the key: %+v", acct.Permissions)
	}

	gk, gacct, err := s.GetAPIKey(ctx, "key-1")
	must(t, err)
	if gk.ID != "key-1" || gacct.ID != "alice" || !bytes.Equal(gk.Hash, hash) || gk.ExpiresAt == nil {
		t.Fatalf("got by id %+v of %+v", gk, gacct)
	}
	_, _, err = s.GetAPIKey(ctx, "key-unknown")
	wantKind(t, err, fault.NotFound, "unknown key id")

	other := bytes.Repeat([]byte{0xcd}, 32)
	_, _, err = s.FindAPIKey(ctx, other)
	wantKind(t, err, fault.NotFound, "unknown hash")
	noSecret(t, err, fmt.Sprintf("%x", other))
	noSecret(t, err, string(other))

	_, err = s.AddAPIKey(ctx, store.APIKey{ID: "key-1", AccountID: "alice", Hash: other})
	wantKind(t, err, fault.Conflict, "duplicate key id")
	_, err = s.AddAPIKey(ctx, store.APIKey{ID: "key-2", AccountID: "bob", Hash: hash})
	wantKind(t, err, fault.Conflict, "duplicate hash")
	noSecret(t, err, fmt.Sprintf("%x", hash))
	_, err = s.AddAPIKey(ctx, store.APIKey{ID: "key-3", AccountID: "nobody", Hash: other})
	wantKind(t, err, fault.NotFound, "key of a missing account")
	_, err = s.AddAPIKey(ctx, store.APIKey{ID: "key-4", AccountID: "alice"})
	wantKind(t, err, fault.Invalid, "key without hash")
	_, err = s.AddAPIKey(ctx, store.APIKey{ID: "key-5", AccountID: "alice", Hash: make([]byte, store.MaxKeyHashBytes+1)})
	wantKind(t, err, fault.Invalid, "hash too long")
	_, _, err = s.FindAPIKey(ctx, nil)
	wantKind(t, err, fault.Invalid, "find without hash")

	_, err = s.AddAPIKey(ctx, store.APIKey{ID: "key-b", AccountID: "bob", Hash: other, Prefix: "sk_cd"})
	must(t, err)
	_, err = s.AddAPIKey(ctx, store.APIKey{ID: "key-a2", AccountID: "alice", Hash: bytes.Repeat([]byte{1}, 32)})
	must(t, err)
	keys, err := s.ListAPIKeys(ctx, "alice")
	must(t, err)
	if len(keys) != 2 || keys[0].ID != "key-1" || keys[1].ID != "key-a2" {
		t.Fatalf("alice's keys: %+v", keys)
	}
	for _, k := range keys {
		if len(k.Hash) != 0 {
			t.Errorf("list shows a hash: %+v", k)
		}
	}

	// Scoping: bob cannot revoke alice's key.
	wantKind(t, s.RevokeAPIKey(ctx, "bob", "key-1"), fault.NotFound, "revoke another account's key")
	must(t, s.RevokeAPIKey(ctx, "alice", "key-1"))
	fk, _, err = s.FindAPIKey(ctx, hash)
	must(t, err)
	if fk.RevokedAt == nil || fk.Active(time.Now()) {
		t.Fatalf("revoked key: %+v", fk)
	}
	first := *fk.RevokedAt
	must(t, s.RevokeAPIKey(ctx, "alice", "key-1"))
	fk, _, _ = s.FindAPIKey(ctx, hash)
	if !fk.RevokedAt.Equal(first) {
		t.Errorf("second revoke moved the time: %v -> %v", first, fk.RevokedAt)
	}
	wantKind(t, s.RevokeAPIKey(ctx, "alice", "nokey"), fault.NotFound, "revoke a missing key")

	used := time.Now().UTC().Truncate(time.Microsecond)
	must(t, s.MarkAPIKeysUsed(ctx, map[string]time.Time{"key-b": used, "no-such-key": used}))
	must(t, s.MarkAPIKeysUsed(ctx, map[string]time.Time{"key-b": used.Add(-time.Hour)}))
	fk, _, err = s.FindAPIKey(ctx, other)
	must(t, err)
	if fk.LastUsedAt == nil || !fk.LastUsedAt.Equal(used) {
		t.Fatalf("last used %v, want %v (it never moves back)", fk.LastUsedAt, used)
	}
	must(t, s.MarkAPIKeysUsed(ctx, nil))

	// Disabled accounts are returned with their keys: the caller refuses them.
	must(t, s.DisableAccount(ctx, "bob"))
	_, acct, err = s.FindAPIKey(ctx, other)
	must(t, err)
	if !acct.Disabled {
		t.Fatal("disabled account not reported")
	}

	// The per-account bound.
	mkAccount(t, s, "many")
	for i := range store.MaxAPIKeysPerAccount {
		_, err := s.AddAPIKey(ctx, store.APIKey{ID: fmt.Sprintf("m-%d", i), AccountID: "many", Hash: []byte(fmt.Sprintf("hash-many-%d", i))})
		must(t, err)
	}
	_, err = s.AddAPIKey(ctx, store.APIKey{ID: "m-over", AccountID: "many", Hash: []byte("hash-many-over")})
	wantKind(t, err, fault.Invalid, "key over the per-account bound")
}

func testCredentials(t *testing.T, s store.Store) {
	secretCT := []byte("ciphertext-that-is-secret")
	c, err := s.PutCredential(ctx, store.Credential{ID: "gh", Type: "bearer-token", Description: "GitHub",
		Hosts: []string{"api.github.com", "uploads.github.com:443"}, MasterKeyID: "mk1", Nonce: []byte("nonce-123456"), Ciphertext: secretCT})
	must(t, err)
	if c.CreatedAt.IsZero() || !c.CreatedAt.Equal(c.UpdatedAt) {
		t.Fatalf("times: %+v", c)
	}
	got, err := s.GetCredential(ctx, "gh")
	must(t, err)
	if got.Type != "bearer-token" || got.Description != "GitHub" || got.MasterKeyID != "mk1" ||
		!bytes.Equal(got.Nonce, []byte("nonce-123456")) || !bytes.Equal(got.Ciphertext, secretCT) ||
		!slices.Equal(got.Hosts, []string{"api.github.com", "uploads.github.com:443"}) {
		t.Fatalf("got %+v", got)
	}
	time.Sleep(2 * time.Millisecond) // so the replace's update time differs from the creation time
	rep, err := s.PutCredential(ctx, store.Credential{ID: "gh", Type: "api-key", MasterKeyID: "mk1", Nonce: []byte("n2"), Ciphertext: []byte("ct2")})
	must(t, err)
	if !rep.CreatedAt.Equal(c.CreatedAt) || !rep.UpdatedAt.After(c.UpdatedAt) {
		t.Fatalf("replace: created %v (want %v), updated %v", rep.CreatedAt, c.CreatedAt, rep.UpdatedAt)
	}
	got, _ = s.GetCredential(ctx, "gh")
	if got.Type != "api-key" || string(got.Ciphertext) != "ct2" || !got.CreatedAt.Equal(c.CreatedAt) || got.Hosts != nil {
		t.Fatalf("after replace: %+v", got)
	}
	for i := range 5 {
		_, err := s.PutCredential(ctx, store.Credential{ID: fmt.Sprintf("c%d", i), Type: "t", MasterKeyID: "mk1", Ciphertext: []byte("x")})
		must(t, err)
	}
	list, next, err := s.ListCredentials(ctx, store.Page{Limit: 4})
	must(t, err)
	if len(list) != 4 || next == "" || list[0].ID != "c0" {
		t.Fatalf("first page %+v next %q", list, next)
	}
	rest, next2, err := s.ListCredentials(ctx, store.Page{Cursor: next, Limit: 4})
	must(t, err)
	if len(rest) != 2 || next2 != "" || rest[1].ID != "gh" || rest[1].Hosts != nil {
		t.Fatalf("second page %+v next %q", rest, next2)
	}
	for _, c := range append(list, rest...) {
		if len(c.Ciphertext) != 0 || len(c.Nonce) != 0 {
			t.Fatalf("list shows ciphertext: %+v", c)
		}
	}
	must(t, s.DeleteCredential(ctx, "c0"))
	_, err = s.GetCredential(ctx, "c0")
	wantKind(t, err, fault.NotFound, "deleted credential")
	wantKind(t, s.DeleteCredential(ctx, "c0"), fault.NotFound, "delete twice")

	bad := []store.Credential{
		{ID: "x", MasterKeyID: "mk", Ciphertext: []byte("c")},              // no type
		{ID: "x", Type: "t", Ciphertext: []byte("c")},                      // no master key
		{ID: "x", Type: "t", MasterKeyID: "mk"},                            // no ciphertext
		{ID: "a b", Type: "t", MasterKeyID: "mk", Ciphertext: []byte("c")}, // bad id
		{ID: "x", Type: "t", MasterKeyID: "mk", Ciphertext: make([]byte, store.MaxCredentialSize+1)},
		{ID: "x", Type: "t", MasterKeyID: "mk", Ciphertext: []byte("c"), Hosts: []string{"a b"}},
		{ID: "x", Type: "t", MasterKeyID: "mk", Ciphertext: []byte("c"), Hosts: make([]string, store.MaxCredentialHosts+1)},
	}
	for i, c := range bad {
		_, err := s.PutCredential(ctx, c)
		wantKind(t, err, fault.Invalid, fmt.Sprintf("bad credential %d", i))
		noSecret(t, err, "secret")
	}
}

func testCredentialRotation(t *testing.T, s store.Store) {
	for _, id := range []string{"a", "b", "c"} {
		_, err := s.PutCredential(ctx, store.Credential{ID: id, Type: "t", MasterKeyID: "old", Nonce: []byte("n-" + id), Ciphertext: []byte("old-" + id)})
		must(t, err)
	}
	all, err := s.AllCredentials(ctx)
	must(t, err)
	if len(all) != 3 || string(all[0].Ciphertext) != "old-a" {
		t.Fatalf("all: %+v", all)
	}
	rotated := make([]store.Credential, len(all))
	for i, c := range all {
		c.MasterKeyID, c.Nonce, c.Ciphertext = "new", []byte("nn-"+c.ID), []byte("new-"+c.ID)
		rotated[i] = c
	}

	// A record changed since it was read makes the whole rotation fail.
	time.Sleep(2 * time.Millisecond)
	_, err = s.PutCredential(ctx, store.Credential{ID: "b", Type: "t", MasterKeyID: "old", Ciphertext: []byte("changed")})
	must(t, err)
	wantKind(t, s.RotateCredentials(ctx, rotated), fault.Conflict, "rotation over a changed record")
	a, _ := s.GetCredential(ctx, "a")
	if a.MasterKeyID != "old" || string(a.Ciphertext) != "old-a" {
		t.Fatalf("a failed rotation wrote a record: %+v", a)
	}

	all, err = s.AllCredentials(ctx)
	must(t, err)
	for i, c := range all {
		c.MasterKeyID, c.Nonce, c.Ciphertext = "new", []byte("nn-"+c.ID), []byte("new-"+c.ID)
		rotated[i] = c
	}
	must(t, s.RotateCredentials(ctx, rotated))
	all, err = s.AllCredentials(ctx)
	must(t, err)
	for _, c := range all {
		if c.MasterKeyID != "new" || string(c.Ciphertext) != "new-"+c.ID || string(c.Nonce) != "nn-"+c.ID {
			t.Fatalf("not rotated: %+v", c)
		}
	}
	all, err = s.AllCredentials(ctx)
	must(t, err)
	must(t, s.DeleteCredential(ctx, "c"))
	wantKind(t, s.RotateCredentials(ctx, all), fault.NotFound, "rotation of a deleted record")
	must(t, s.RotateCredentials(ctx, nil))
}
