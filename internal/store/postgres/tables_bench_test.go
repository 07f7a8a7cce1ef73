package postgres_test

import (
	"crypto/sha256"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/internal/store/storetest"
)

// BenchmarkAccountTables measures the two stores in one run on the account
// tables' hot calls: "find" is an API key's look-up with its account (the
// authentication of a request whose key is not cached), "update" an
// account's update read back. 1 client gives the latency, 32 the throughput.
func BenchmarkAccountTables(b *testing.B) {
	hash := sha256.Sum256([]byte("bench-secret"))
	for _, be := range benchStores {
		for _, call := range []string{"find", "update"} {
			for _, clients := range []int{1, 32} {
				b.Run(fmt.Sprintf("%s/%s/clients=%d", be.name, call, clients), func(b *testing.B) {
					s := be.open(b)
					defer s.Close()
					if _, err := s.CreateAccount(ctx, store.Account{ID: "bench", Name: "bench"}); err != nil {
						b.Fatal(err)
					}
					if _, err := s.AddAPIKey(ctx, store.APIKey{ID: "key-bench", AccountID: "bench", Hash: hash[:], Prefix: "sk_bench"}); err != nil {
						b.Fatal(err)
					}
					var seq atomic.Int64
					do := func() error {
						if call == "find" {
							_, _, err := s.FindAPIKey(ctx, hash[:])
							return err
						}
						name := fmt.Sprintf("bench-%d", seq.Add(1))
						_, err := s.UpdateAccount(ctx, "bench", store.AccountUpdate{Name: &name})
						return err
					}
					b.ResetTimer()
					if clients == 1 {
						for range b.N {
							if err := do(); err != nil {
								b.Fatal(err)
							}
						}
						return
					}
					storetest.SetClients(b, clients)
					b.RunParallel(func(pb *testing.PB) {
						for pb.Next() {
							if err := do(); err != nil {
								b.Error(err)
								return
							}
						}
					})
				})
			}
		}
	}
}

// BenchmarkRotateCredentials measures a vault rotation's write: every
// credential of a vault of 1000 swapped in one transaction.
func BenchmarkRotateCredentials(b *testing.B) {
	const n = 1000
	eachStore(b, func(b *testing.B, s store.Store) {
		creds := make([]store.Credential, n)
		for i := range creds {
			c, err := s.PutCredential(ctx, store.Credential{ID: fmt.Sprintf("cred-%04d", i), Type: "bearer",
				MasterKeyID: "mk0", Nonce: []byte("nonce-000000"), Ciphertext: []byte("ciphertext")})
			if err != nil {
				b.Fatal(err)
			}
			creds[i] = c
		}
		b.ResetTimer()
		for i := range b.N {
			all, err := s.AllCredentials(ctx)
			if err != nil {
				b.Fatal(err)
			}
			for j := range all {
				all[j].MasterKeyID = fmt.Sprintf("mk%d", i+1)
			}
			if err := s.RotateCredentials(ctx, all); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkKV measures the key-value store's write in one run on both
// stores: "new" puts a key the account does not hold yet (it takes a slot
// in kv_usage), "update" rewrites one key.
func BenchmarkKV(b *testing.B) {
	for _, be := range benchStores {
		for _, call := range []string{"new", "update"} {
			b.Run(be.name+"/"+call, func(b *testing.B) {
				s := be.open(b)
				defer s.Close()
				if _, err := s.CreateAccount(ctx, store.Account{ID: "bench", Name: "bench"}); err != nil {
					b.Fatal(err)
				}
				value := []byte(`{"n":1}`)
				b.ResetTimer()
				for i := range b.N {
					key := "key"
					if call == "new" {
						// Under the per-account bound: a fresh account every 5000 keys.
						if i%5000 == 0 && i > 0 {
							if _, err := s.CreateAccount(ctx, store.Account{ID: fmt.Sprintf("bench-%d", i), Name: fmt.Sprintf("bench-%d", i)}); err != nil {
								b.Fatal(err)
							}
						}
						key = fmt.Sprintf("key-%d", i)
					}
					account := "bench"
					if call == "new" && i >= 5000 {
						account = fmt.Sprintf("bench-%d", i/5000*5000)
					}
					if err := s.PutKV(ctx, account, key, value); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkSaveRateCounters measures a rate limiter's flush: 1000 counters
// (500 accounts, two windows) saved in one call, every one an update after
// the first.
func BenchmarkSaveRateCounters(b *testing.B) {
	const accounts = 500
	eachStore(b, func(b *testing.B, s store.Store) {
		start := time.Now().UTC().Truncate(time.Minute)
		cs := make([]store.RateCounter, 0, 2*accounts)
		for i := range accounts {
			id := fmt.Sprintf("acct-%04d", i)
			cs = append(cs,
				store.RateCounter{AccountID: id, Window: "minute", Start: start, End: start.Add(time.Minute)},
				store.RateCounter{AccountID: id, Window: "hour", Start: start.Truncate(time.Hour), End: start.Truncate(time.Hour).Add(time.Hour)})
		}
		b.ResetTimer()
		for i := range b.N {
			for j := range cs {
				cs[j].Count = int64(i + 1)
			}
			if err := s.SaveRateCounters(ctx, start, cs); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkAudit measures the audit log on both stores: "append/N" writes
// N records in one call (the auditor's flush), "query/all" and
// "query/account" read the newest page, unfiltered and by account, of 2000
// records of 4 accounts.
func BenchmarkAudit(b *testing.B) {
	rec := func(i int) store.AuditRecord {
		return store.AuditRecord{Time: time.Now(), RequestID: fmt.Sprintf("req-%d", i), AccountID: fmt.Sprintf("acct-%d", i%4),
			Method: "workflow.execute", Decision: store.DecisionAllow, LatencyMs: 3, Status: "succeeded", Details: []byte(`{"n":1}`)}
	}
	for _, be := range benchStores {
		for _, n := range []int{1, 4, 100} {
			b.Run(fmt.Sprintf("%s/append/%d", be.name, n), func(b *testing.B) {
				s := be.open(b)
				defer s.Close()
				recs := make([]store.AuditRecord, n)
				for i := range recs {
					recs[i] = rec(i)
				}
				b.ResetTimer()
				for range b.N {
					if err := s.AppendAudit(ctx, recs); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		for _, by := range []string{"all", "account"} {
			b.Run(be.name+"/query/"+by, func(b *testing.B) {
				s := be.open(b)
				defer s.Close()
				recs := make([]store.AuditRecord, 2000)
				for i := range recs {
					recs[i] = rec(i)
				}
				if err := s.AppendAudit(ctx, recs); err != nil {
					b.Fatal(err)
				}
				q := store.AuditQuery{Page: store.Page{Limit: 50}}
				if by == "account" {
					q.AccountID = "acct-1"
				}
				b.ResetTimer()
				for range b.N {
					if _, _, err := s.QueryAudit(ctx, q); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// eachStore runs fn as a sub-benchmark on each store, opened afresh.
func eachStore(b *testing.B, fn func(b *testing.B, s store.Store)) {
	for _, be := range benchStores {
		b.Run(be.name, func(b *testing.B) {
			s := be.open(b)
			defer s.Close()
			fn(b, s)
		})
	}
}
