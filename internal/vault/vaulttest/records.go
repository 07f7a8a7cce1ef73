// Package vaulttest is the contract every vault.Records backend must meet. A
// backend's tests call TestRecords with a constructor of empty instances:
//
//	func TestRecords(t *testing.T) {
//		vaulttest.TestRecords(t, func(t *testing.T) vault.Records { return openStore(t).VaultRecords() })
//	}
package vaulttest

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/vault"
)

// TestRecords runs the contract against fresh instances made by open.
func TestRecords(t *testing.T, open func(t *testing.T) vault.Records) {
	ctx := context.Background()
	at := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	rec := func(id string, nonce byte) vault.Record {
		return vault.Record{ID: id, Type: "api-key", Description: "d " + id, KeyID: "00112233aabbccdd",
			Nonce: bytes.Repeat([]byte{nonce}, 12), Ciphertext: []byte("ct-" + id + string(rune('a'+nonce))),
			Created: at, Updated: at.Add(time.Minute)}
	}
	same := func(t *testing.T, got, want vault.Record) {
		t.Helper()
		if got.ID != want.ID || got.Type != want.Type || got.Description != want.Description || got.KeyID != want.KeyID ||
			!bytes.Equal(got.Nonce, want.Nonce) || !bytes.Equal(got.Ciphertext, want.Ciphertext) ||
			!got.Created.Equal(want.Created) || !got.Updated.Equal(want.Updated) {
			t.Fatalf("record\n got %+v\nwant %+v", got, want)
		}
	}

	t.Run("put get list delete", func(t *testing.T) {
		r := open(t)
		if _, ok, err := r.Get(ctx, "a"); ok || err != nil {
			t.Fatalf("Get of a missing id: %v %v", ok, err)
		}
		for _, id := range []string{"b", "a", "c"} {
			if err := r.Put(ctx, rec(id, 1)); err != nil {
				t.Fatal(err)
			}
		}
		got, ok, err := r.Get(ctx, "a")
		if !ok || err != nil {
			t.Fatalf("Get: %v %v", ok, err)
		}
		same(t, got, rec("a", 1))
		got.Ciphertext[0] ^= 1 // the caller's copy
		again, _, _ := r.Get(ctx, "a")
		same(t, again, rec("a", 1))
		if err := r.Put(ctx, rec("a", 2)); err != nil { // replace
			t.Fatal(err)
		}
		list, err := r.List(ctx)
		if err != nil || len(list) != 3 || list[0].ID != "a" || list[1].ID != "b" || list[2].ID != "c" {
			t.Fatalf("List must be ordered by id: %+v %v", list, err)
		}
		same(t, list[0], rec("a", 2))
		if ok, err := r.Delete(ctx, "b"); !ok || err != nil {
			t.Fatalf("Delete: %v %v", ok, err)
		}
		if ok, err := r.Delete(ctx, "b"); ok || err != nil {
			t.Fatalf("second Delete: %v %v", ok, err)
		}
		if list, _ := r.List(ctx); len(list) != 2 {
			t.Fatalf("after Delete: %+v", list)
		}
	})

	t.Run("reseal swaps only unchanged records", func(t *testing.T) {
		r := open(t)
		for _, id := range []string{"a", "b"} {
			if err := r.Put(ctx, rec(id, 1)); err != nil {
				t.Fatal(err)
			}
		}
		if err := r.Put(ctx, rec("b", 3)); err != nil { // b changed since it was read
			t.Fatal(err)
		}
		newA, newB := rec("a", 7), rec("b", 7)
		newA.KeyID, newB.KeyID = "ffeeddccbbaa9988", "ffeeddccbbaa9988"
		n, err := r.Reseal(ctx, []vault.Swap{
			{ID: "a", OldNonce: rec("a", 1).Nonce, New: newA},
			{ID: "b", OldNonce: rec("b", 1).Nonce, New: newB},
			{ID: "gone", OldNonce: rec("gone", 1).Nonce, New: rec("gone", 7)},
		})
		if err != nil || n != 1 {
			t.Fatalf("Reseal: %d %v", n, err)
		}
		a, _, _ := r.Get(ctx, "a")
		same(t, a, newA)
		b, _, _ := r.Get(ctx, "b")
		same(t, b, rec("b", 3))
		if _, ok, _ := r.Get(ctx, "gone"); ok {
			t.Fatal("Reseal must not create records")
		}
	})

	t.Run("cancelled context", func(t *testing.T) {
		r := open(t)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if err := r.Put(cctx, rec("a", 1)); err == nil {
			t.Fatal("Put with a cancelled context must fail")
		}
	})
}
