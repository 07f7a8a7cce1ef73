package vault_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/vault"
	"github.com/sluicehq/sluice/internal/vault/redact"
)

const secretValue = "sk_live_0123456789abcdefSECRET"

var t0 = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

func mustKey(t *testing.T, fill byte) vault.MasterKey {
	t.Helper()
	k, err := vault.NewMasterKey(keyBytes(fill))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func mustRing(t *testing.T, cur vault.MasterKey, prev ...vault.MasterKey) *vault.Keyring {
	t.Helper()
	r, err := vault.NewKeyring(cur, prev...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// newSealed is a vault without a cache, so every Resolve opens the record.
func newSealed(t *testing.T, recs vault.Records, ring *vault.Keyring, logs *bytes.Buffer) *vault.Sealed {
	t.Helper()
	opts := vault.Options{Clock: clock.NewFake(t0), CacheSize: -1}
	if logs != nil {
		opts.Logger = slog.New(slog.NewJSONHandler(logs, nil))
	}
	return vault.NewSealed(recs, ring, opts)
}

func put(t *testing.T, v *vault.Sealed, id, typ, value string) vault.Metadata {
	t.Helper()
	md, err := v.Put(context.Background(), vault.Entry{ID: id, Type: typ, Description: "for " + id, Value: vault.NewPlaintext(value)})
	if err != nil {
		t.Fatal(err)
	}
	return md
}

// noSecret fails when any rendering of err carries s.
func noSecret(t *testing.T, err error, secrets ...string) {
	t.Helper()
	if err == nil {
		return
	}
	fe := fault.From(err)
	obj, _ := json.Marshal(fe.Object())
	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Error("x", "err", fe)
	for _, s := range secrets {
		for _, text := range []string{err.Error(), string(obj), logs.String(), fmt.Sprintf("%+v", err)} {
			if strings.Contains(text, s) {
				t.Fatalf("error leaks a secret: %s", text)
			}
		}
	}
}

func TestSealedRoundTrip(t *testing.T) {
	ctx := context.Background()
	recs := vault.NewMemoryRecords()
	key := mustKey(t, 1)
	v := newSealed(t, recs, mustRing(t, key), nil)
	md := put(t, v, "api-key-123", "bearer-token", secretValue)
	if md.KeyID != key.ID() || !md.Created.Equal(t0) || md.Type != "bearer-token" {
		t.Fatalf("metadata %+v", md)
	}
	got, err := v.Resolve(ctx, "api-key-123")
	if err != nil || !reflect.DeepEqual(got, op.Secret{Type: "bearer-token", Value: secretValue}) {
		t.Fatalf("Resolve: %+v %v", got, err)
	}
	rec, _, _ := recs.Get(ctx, "api-key-123")
	if bytes.Contains(rec.Ciphertext, []byte(secretValue)) || len(rec.Nonce) != 12 {
		t.Fatalf("record is not sealed: %+v", rec)
	}
	// A second Put of the same value seals with a fresh nonce and keeps Created.
	put(t, v, "api-key-123", "bearer-token", secretValue)
	rec2, _, _ := recs.Get(ctx, "api-key-123")
	if bytes.Equal(rec.Nonce, rec2.Nonce) || bytes.Equal(rec.Ciphertext, rec2.Ciphertext) {
		t.Fatal("every sealing must use a fresh nonce")
	}
	list, err := v.List(ctx)
	if err != nil || len(list) != 1 || list[0].ID != "api-key-123" {
		t.Fatalf("List: %+v %v", list, err)
	}
	b, _ := json.Marshal(list)
	if strings.Contains(string(b), secretValue) || !strings.Contains(string(b), `"key_id":"`+key.ID()+`"`) {
		t.Fatalf("metadata JSON: %s", b)
	}
	if err := v.Delete(ctx, "api-key-123"); err != nil {
		t.Fatal(err)
	}
	if err := v.Delete(ctx, "api-key-123"); fault.KindOf(err) != fault.NotFound {
		t.Fatalf("second Delete: %v", err)
	}
	if _, err := v.Describe(ctx, "api-key-123"); fault.KindOf(err) != fault.NotFound {
		t.Fatalf("Describe after Delete: %v", err)
	}
}

func TestSealedUnknownIDMatchesMemory(t *testing.T) {
	ctx := context.Background()
	v := newSealed(t, vault.NewMemoryRecords(), mustRing(t, mustKey(t, 1)), nil)
	_, errSealed := v.Resolve(ctx, "nope")
	_, errMemory := vault.NewMemory(nil).Resolve(ctx, "nope")
	a, _ := json.Marshal(fault.From(errSealed).Object())
	b, _ := json.Marshal(fault.From(errMemory).Object())
	if string(a) != string(b) || fault.KindOf(errSealed) != fault.PermissionDenied {
		t.Fatalf("Sealed %s\nMemory %s", a, b)
	}
}

func TestSealedTamperDetection(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name   string
		tamper func(r vault.Record, other vault.Record) vault.Record
	}{
		{"flip a ciphertext bit", func(r, _ vault.Record) vault.Record { r.Ciphertext[0] ^= 1; return r }},
		{"flip a tag bit", func(r, _ vault.Record) vault.Record { r.Ciphertext[len(r.Ciphertext)-1] ^= 0x80; return r }},
		{"flip a nonce bit", func(r, _ vault.Record) vault.Record { r.Nonce[5] ^= 1; return r }},
		{"truncate the nonce", func(r, _ vault.Record) vault.Record { r.Nonce = r.Nonce[:8]; return r }},
		{"change the type", func(r, _ vault.Record) vault.Record { r.Type = "api-key"; return r }},
		{"swap ciphertext from another id", func(r, o vault.Record) vault.Record {
			r.Nonce, r.Ciphertext, r.Type = o.Nonce, o.Ciphertext, o.Type
			return r
		}},
		{"name an unknown key", func(r, _ vault.Record) vault.Record { r.KeyID = "0000000000000000"; return r }},
		{"empty ciphertext", func(r, _ vault.Record) vault.Record { r.Ciphertext = nil; return r }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			recs := vault.NewMemoryRecords()
			var logs bytes.Buffer
			v := newSealed(t, recs, mustRing(t, mustKey(t, 1)), &logs)
			put(t, v, "target", "bearer-token", secretValue)
			put(t, v, "other", "bearer-token", "another-secret-value-999")
			target, _, _ := recs.Get(ctx, "target")
			other, _, _ := recs.Get(ctx, "other")
			if err := recs.Put(ctx, c.tamper(target, other)); err != nil {
				t.Fatal(err)
			}
			got, err := v.Resolve(ctx, "target")
			if err == nil {
				t.Fatalf("tampered record opened: %q", got.Value)
			}
			fe := fault.From(err)
			if fe.Kind != fault.Internal || !strings.Contains(fe.Message, `credential "target" cannot be decrypted`) {
				t.Fatalf("error %+v", fe)
			}
			noSecret(t, err, secretValue, "another-secret-value-999")
			if !strings.Contains(logs.String(), `"credentialId":"target"`) || strings.Contains(logs.String(), secretValue) {
				t.Fatalf("the failure must be logged by id only: %s", logs.String())
			}
		})
	}
}

func TestSealedWrongMasterKey(t *testing.T) {
	ctx := context.Background()
	recs := vault.NewMemoryRecords()
	put(t, newSealed(t, recs, mustRing(t, mustKey(t, 1)), nil), "cred", "api-key", secretValue)
	// The server restarted with another key (and without the old one).
	v := newSealed(t, recs, mustRing(t, mustKey(t, 2)), nil)
	_, err := v.Resolve(ctx, "cred")
	if fault.KindOf(err) != fault.Internal {
		t.Fatalf("want an internal error, got %v", err)
	}
	noSecret(t, err, secretValue)
	// A forged record claiming the new key's id still fails authentication.
	rec, _, _ := recs.Get(ctx, "cred")
	rec.KeyID = mustKey(t, 2).ID()
	_ = recs.Put(ctx, rec)
	if _, err := v.Resolve(ctx, "cred"); err == nil {
		t.Fatal("a record sealed with another key must not open")
	}
}

func TestSealedRotate(t *testing.T) {
	ctx := context.Background()
	recs := vault.NewMemoryRecords()
	oldKey, newKey := mustKey(t, 1), mustKey(t, 2)
	before := newSealed(t, recs, mustRing(t, oldKey), nil)
	values := map[string]string{"a": "value-a-123456", "b": "value-b-123456", "c": "value-c-123456"}
	for id, val := range values {
		put(t, before, id, "api-key", val)
	}
	v := newSealed(t, recs, mustRing(t, newKey, oldKey), nil)
	put(t, v, "d", "api-key", "value-d-123456") // already under the new key
	values["d"] = "value-d-123456"

	rep, err := v.Rotate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep != (vault.RotateReport{KeyID: newKey.ID(), Total: 4, Resealed: 3, Current: 1}) {
		t.Fatalf("report %+v", rep)
	}
	// Without the old key every credential still opens.
	after := newSealed(t, recs, mustRing(t, newKey), nil)
	for id, val := range values {
		got, err := after.Resolve(ctx, id)
		if err != nil || got.Value != val {
			t.Fatalf("%s after rotation: %q %v", id, got.Value, err)
		}
		md, _ := after.Describe(ctx, id)
		if md.KeyID != newKey.ID() {
			t.Fatalf("%s still under %s", id, md.KeyID)
		}
	}
	again, err := after.Rotate(ctx)
	if err != nil || again.Resealed != 0 || again.Current != 4 {
		t.Fatalf("second rotation: %+v %v", again, err)
	}
}

func TestSealedRotateIsAllOrNothing(t *testing.T) {
	ctx := context.Background()
	recs := vault.NewMemoryRecords()
	k1, k2, k3 := mustKey(t, 1), mustKey(t, 2), mustKey(t, 3)
	put(t, newSealed(t, recs, mustRing(t, k1), nil), "good", "api-key", "value-good-1234")
	put(t, newSealed(t, recs, mustRing(t, k2), nil), "lost", "api-key", "value-lost-1234")
	before, _ := recs.List(ctx)

	v := newSealed(t, recs, mustRing(t, k3, k1), nil) // k2 is missing
	_, err := v.Rotate(ctx)
	if err == nil || !strings.Contains(err.Error(), `"lost"`) {
		t.Fatalf("want a refusal naming the record, got %v", err)
	}
	noSecret(t, err, "value-lost-1234", "value-good-1234")
	after, _ := recs.List(ctx)
	for i := range before {
		if !bytes.Equal(before[i].Ciphertext, after[i].Ciphertext) || before[i].KeyID != after[i].KeyID {
			t.Fatalf("a refused rotation wrote %s", after[i].ID)
		}
	}
}

// racingRecords writes a credential between the rotation's List and Reseal,
// as another gateway would.
type racingRecords struct {
	*vault.MemoryRecords
	race func()
}

func (r racingRecords) Reseal(ctx context.Context, swaps []vault.Swap) (int, error) {
	r.race()
	return r.MemoryRecords.Reseal(ctx, swaps)
}

func TestSealedRotateLeavesConcurrentWrites(t *testing.T) {
	ctx := context.Background()
	mem := vault.NewMemoryRecords()
	k1, k2 := mustKey(t, 1), mustKey(t, 2)
	put(t, newSealed(t, mem, mustRing(t, k1), nil), "a", "api-key", "old-value-a-1")
	put(t, newSealed(t, mem, mustRing(t, k1), nil), "b", "api-key", "old-value-b-1")
	other := newSealed(t, mem, mustRing(t, k2, k1), nil)
	recs := racingRecords{mem, func() { put(t, other, "b", "api-key", "new-value-b-2") }}
	rep, err := newSealed(t, recs, mustRing(t, k2, k1), nil).Rotate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Resealed != 1 || rep.Changed != 1 {
		t.Fatalf("report %+v", rep)
	}
	got, err := newSealed(t, mem, mustRing(t, k2), nil).Resolve(ctx, "b")
	if err != nil || got.Value != "new-value-b-2" {
		t.Fatalf("the concurrent write was lost: %q %v", got.Value, err)
	}
}

func TestSealedPutValidation(t *testing.T) {
	v := newSealed(t, vault.NewMemoryRecords(), mustRing(t, mustKey(t, 1)), nil)
	cases := []struct {
		e     vault.Entry
		field string
	}{
		{vault.Entry{ID: "", Type: "api-key", Value: vault.NewPlaintext(secretValue)}, "id"},
		{vault.Entry{ID: "-lead", Type: "api-key", Value: vault.NewPlaintext(secretValue)}, "id"},
		{vault.Entry{ID: "has space", Type: "api-key", Value: vault.NewPlaintext(secretValue)}, "id"},
		{vault.Entry{ID: strings.Repeat("x", 129), Type: "api-key", Value: vault.NewPlaintext(secretValue)}, "id"},
		{vault.Entry{ID: "ok", Type: "", Value: vault.NewPlaintext(secretValue)}, "type"},
		{vault.Entry{ID: "ok", Type: "Bearer", Value: vault.NewPlaintext(secretValue)}, "type"},
		{vault.Entry{ID: "ok", Type: "api-key", Description: strings.Repeat("d", 1025), Value: vault.NewPlaintext(secretValue)}, "description"},
		{vault.Entry{ID: "ok", Type: "api-key", Description: "\xff", Value: vault.NewPlaintext(secretValue)}, "description"},
		{vault.Entry{ID: "ok", Type: "api-key", Value: vault.NewPlaintext("")}, "value"},
		{vault.Entry{ID: "ok", Type: "api-key", Value: vault.NewPlaintext(strings.Repeat("v", 64<<10+1))}, "value"},
	}
	for _, c := range cases {
		_, err := v.Put(context.Background(), c.e)
		fe, ok := fault.As(err)
		if !ok || fe.Kind != fault.Invalid || fe.Details["field"] != c.field {
			t.Errorf("%v: want an Invalid error on %s, got %v", c.e, c.field, err)
		}
		noSecret(t, err, secretValue)
	}
	for _, id := range []string{"a", "api-key-123", "Org.Service:prod_1"} {
		if _, err := v.Put(context.Background(), vault.Entry{ID: id, Type: "bearer-token", Value: vault.NewPlaintext("v4lue")}); err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}
}

func TestSealedCache(t *testing.T) {
	ctx := context.Background()
	recs := vault.NewMemoryRecords()
	clk := clock.NewFake(t0)
	ring := mustRing(t, mustKey(t, 1))
	v := vault.NewSealed(recs, ring, vault.Options{Clock: clk, CacheTTL: time.Minute})
	put(t, v, "c", "api-key", "first-value-1")
	if got, _ := v.Resolve(ctx, "c"); got.Value != "first-value-1" {
		t.Fatalf("got %q", got.Value)
	}
	// Another process changes the record behind this vault's back.
	put(t, newSealed(t, recs, ring, nil), "c", "api-key", "second-value-2")
	if got, _ := v.Resolve(ctx, "c"); got.Value != "first-value-1" {
		t.Fatalf("within the TTL the cached value is served, got %q", got.Value)
	}
	clk.Advance(time.Minute)
	if got, _ := v.Resolve(ctx, "c"); got.Value != "second-value-2" {
		t.Fatalf("after the TTL the record is read again, got %q", got.Value)
	}
	// A change through this vault is seen at once.
	put(t, v, "c", "api-key", "third-value-3")
	if got, _ := v.Resolve(ctx, "c"); got.Value != "third-value-3" {
		t.Fatalf("Put must drop the cached value, got %q", got.Value)
	}
	if err := v.Delete(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Resolve(ctx, "c"); fault.KindOf(err) != fault.PermissionDenied {
		t.Fatalf("Delete must drop the cached value, got %v", err)
	}
}

func TestNoSecretInPrintedValues(t *testing.T) {
	raw := keyBytes(1)
	key := mustKey(t, 1)
	ring := mustRing(t, key)
	entry := vault.Entry{ID: "x", Type: "api-key", Value: vault.NewPlaintext(secretValue)}
	red := redact.New(secretValue)
	type holder struct {
		k vault.MasterKey
		e vault.Entry
		r *redact.Redactor
	}
	values := []any{key, ring, entry, red, holder{key, entry, red}, &holder{key, entry, red}}
	forbidden := []string{secretValue, key.Export(), fmt.Sprint(raw), fmt.Sprintf("%x", raw), fmt.Sprintf("%v", raw[:8])}
	for _, val := range values {
		var logs bytes.Buffer
		slog.New(slog.NewJSONHandler(&logs, nil)).Info("x", "v", val)
		j, _ := json.Marshal(val)
		for _, text := range []string{fmt.Sprint(val), fmt.Sprintf("%+v", val), fmt.Sprintf("%#v", val), string(j), logs.String()} {
			for _, f := range forbidden {
				if strings.Contains(text, f) {
					t.Fatalf("%T prints secret material: %s", val, text)
				}
			}
		}
	}
}
