package policy_test

import (
	"bytes"
	"context"
	"encoding/base32"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/policy"
)

var now = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

func pepper(t testing.TB, fill byte) policy.Pepper {
	t.Helper()
	p, err := policy.NewPepper(bytes.Repeat([]byte{fill}, 32))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func issue(t testing.TB, p policy.Pepper, spec policy.KeySpec) (policy.Key, policy.KeyRecord) {
	t.Helper()
	k, rec, err := policy.IssueKey(p, spec, now)
	if err != nil {
		t.Fatal(err)
	}
	return k, rec
}

// forge builds a well-formed key text from an id and a secret, as the format
// in apikey.go documents it.
func forge(id, secret string) string {
	enc := base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)
	body := "slk_" + id + "_" + secret
	sum := crc32.ChecksumIEEE([]byte(body))
	return body + enc.EncodeToString([]byte{byte(sum >> 24), byte(sum >> 16), byte(sum >> 8), byte(sum)})
}

func TestIssueKeyFormat(t *testing.T) {
	p := pepper(t, 1)
	k, rec := issue(t, p, policy.KeySpec{Account: "acct-1", Name: "ci"})
	text := k.Reveal()
	if len(text) != policy.KeyLen || policy.KeyLen != 77 || !strings.HasPrefix(text, "slk_"+k.ID()+"_") {
		t.Fatalf("key %q (len %d)", text, len(text))
	}
	if rec.ID != k.ID() || rec.Account != "acct-1" || rec.Name != "ci" || !rec.Created.Equal(now) || len(rec.Hash) != 32 {
		t.Fatalf("record %+v", rec)
	}
	if bytes.Contains(rec.Hash, []byte(text)) {
		t.Fatal("the record must not hold the key")
	}
	parsed, err := policy.ParseKey(text)
	if err != nil || parsed.ID() != k.ID() || parsed.Reveal() != text {
		t.Fatalf("ParseKey of an issued key: %v", err)
	}
	k2, _ := issue(t, p, policy.KeySpec{Account: "acct-1"})
	if k2.ID() == k.ID() || k2.Reveal() == text {
		t.Fatal("two keys must differ")
	}
	if _, _, err := policy.IssueKey(p, policy.KeySpec{}, now); fault.KindOf(err) != fault.Invalid {
		t.Fatalf("a key without account: %v", err)
	}
	if _, _, err := policy.IssueKey(p, policy.KeySpec{Account: "a", Expires: now}, now); fault.KindOf(err) != fault.Invalid {
		t.Fatalf("an expiry that is not in the future: %v", err)
	}
	if _, _, err := policy.IssueKey(policy.Pepper{}, policy.KeySpec{Account: "a"}, now); err == nil {
		t.Fatal("a zero pepper must be refused")
	}
}

func TestParseKeyRejects(t *testing.T) {
	good, _ := issue(t, pepper(t, 1), policy.KeySpec{Account: "a"})
	g := good.Reveal()
	flip := func(i int, c byte) string { b := []byte(g); b[i] = c; return string(b) }
	cases := map[string]string{
		"empty":          "",
		"short":          g[:76],
		"long":           g + "a",
		"prefix":         "slx_" + g[4:],
		"upper case":     strings.ToUpper(g),
		"bad character":  flip(30, '1'),
		"separator":      flip(17, 'a'),
		"check digit":    flip(76, map[bool]byte{true: 'b', false: 'a'}[g[76] == 'a']),
		"secret typo":    flip(40, map[bool]byte{true: 'b', false: 'a'}[g[40] == 'a']),
		"id typo":        flip(6, map[bool]byte{true: 'b', false: 'a'}[g[6] == 'a']),
		"white space":    " " + g[1:],
		"bearer pasted":  "Bearer " + g,
		"non-ascii":      strings.Replace(g, g[20:22], "é", 1),
		"wrong-key-name": "sk_live_" + g[8:],
	}
	var msg string
	for name, text := range cases {
		_, err := policy.ParseKey(text)
		fe, ok := fault.As(err)
		if !ok || fe.Kind != fault.Unauthenticated {
			t.Fatalf("%s: want Unauthenticated, got %v", name, err)
		}
		if msg == "" {
			msg = fe.Message
		}
		if fe.Message != msg || strings.Contains(fe.Message, text[min(len(text), 4):]) && text != "" {
			t.Fatalf("%s: every malformed key gets the same message without the key: %q", name, fe.Message)
		}
	}
}

func TestVerifyKey(t *testing.T) {
	p := pepper(t, 1)
	k, rec := issue(t, p, policy.KeySpec{Account: "a", Expires: now.Add(time.Hour)})
	other, _ := issue(t, p, policy.KeySpec{Account: "b"})
	sameIDOtherSecret, err := policy.ParseKey(forge(k.ID(), other.Reveal()[18:70]))
	if err != nil {
		t.Fatal(err)
	}
	at := func(d time.Duration) time.Time { return now.Add(d) }
	revoked := rec
	revoked.Revoked = at(10 * time.Minute)
	cases := []struct {
		name   string
		p      policy.Pepper
		k      policy.Key
		rec    policy.KeyRecord
		at     time.Time
		status policy.KeyStatus
		msg    string
	}{
		{"valid", p, k, rec, now, policy.KeyValid, ""},
		{"just before expiry", p, k, rec, at(time.Hour - time.Nanosecond), policy.KeyValid, ""},
		{"at expiry", p, k, rec, at(time.Hour), policy.KeyExpired, "API key has expired"},
		{"wrong secret, same id", p, sameIDOtherSecret, rec, now, policy.KeyInvalid, "invalid API key"},
		{"another key's record", p, other, rec, now, policy.KeyInvalid, "invalid API key"},
		{"another pepper", pepper(t, 2), k, rec, now, policy.KeyInvalid, "invalid API key"},
		{"zero pepper", policy.Pepper{}, k, rec, now, policy.KeyInvalid, "invalid API key"},
		{"zero key", p, policy.Key{}, rec, now, policy.KeyInvalid, "invalid API key"},
		{"revocation ahead", p, k, revoked, now, policy.KeyValid, ""},
		{"revoked", p, k, revoked, at(10 * time.Minute), policy.KeyRevoked, "API key has been revoked"},
		{"revoked and expired", p, k, revoked, at(2 * time.Hour), policy.KeyRevoked, "API key has been revoked"},
		{"revoked, wrong secret", p, sameIDOtherSecret, revoked, at(time.Hour), policy.KeyInvalid, "invalid API key"},
	}
	for _, c := range cases {
		got := policy.VerifyKey(c.p, c.k, c.rec, c.at)
		if got != c.status {
			t.Errorf("%s: %v, want %v", c.name, got, c.status)
			continue
		}
		err := got.Err()
		if c.msg == "" {
			if err != nil {
				t.Errorf("%s: Err %v", c.name, err)
			}
			continue
		}
		if fe, ok := fault.As(err); !ok || fe.Kind != fault.Unauthenticated || fe.Message != c.msg {
			t.Errorf("%s: Err %v, want %q", c.name, err, c.msg)
		}
	}
}

func TestKeyFromHeader(t *testing.T) {
	k, _ := issue(t, pepper(t, 1), policy.KeySpec{Account: "a"})
	other, _ := issue(t, pepper(t, 1), policy.KeySpec{Account: "a"})
	key := k.Reveal()
	cases := []struct {
		name string
		h    http.Header
		want string // substring of the error; "" for success
	}{
		{"bearer", http.Header{"Authorization": {"Bearer " + key}}, ""},
		{"bearer any case, spaces", http.Header{"Authorization": {"  bearer   " + key + " "}}, ""},
		{"x-api-key", http.Header{"X-Api-Key": {key}}, ""},
		{"both agree", http.Header{"Authorization": {"Bearer " + key}, "X-Api-Key": {key}}, ""},
		{"basic beside x-api-key", http.Header{"Authorization": {"Basic dXNlcjpwYXNz"}, "X-Api-Key": {key}}, ""},
		{"both disagree", http.Header{"Authorization": {"Bearer " + key}, "X-Api-Key": {other.Reveal()}}, "carry different keys"},
		{"two authorization", http.Header{"Authorization": {"Bearer " + key, "Bearer " + key}}, "repeats Authorization"},
		{"two x-api-key", http.Header{"X-Api-Key": {key, key}}, "repeats X-API-Key"},
		{"basic alone", http.Header{"Authorization": {"Basic dXNlcjpwYXNz"}}, "must use the Bearer scheme"},
		{"bearer without token", http.Header{"Authorization": {"Bearer"}}, "must use the Bearer scheme"},
		{"none", http.Header{}, "missing API key"},
		{"malformed", http.Header{"X-Api-Key": {"slk_nope"}}, "invalid API key"},
	}
	for _, c := range cases {
		got, err := policy.KeyFromHeader(c.h)
		if c.want == "" {
			if err != nil || got.ID() != k.ID() {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		fe, ok := fault.As(err)
		if !ok || fe.Kind != fault.Unauthenticated || !strings.Contains(fe.Message, c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
			continue
		}
		if strings.Contains(fe.Message, key[18:]) || strings.Contains(fe.Message, other.Reveal()[18:]) {
			t.Errorf("%s: the message quotes a key: %s", c.name, fe.Message)
		}
	}
}

type failingKeys struct{}

func (failingKeys) LookupKey(context.Context, string) (policy.KeyRecord, bool, error) {
	return policy.KeyRecord{}, false, errors.New("database is locked")
}

func TestAuthenticator(t *testing.T) {
	ctx := context.Background()
	p := pepper(t, 1)
	keys := policy.NewMemoryKeys()
	k, rec := issue(t, p, policy.KeySpec{Account: "acct-7", Expires: now.Add(time.Hour)})
	keys.Put(rec)
	unknown, _ := issue(t, p, policy.KeySpec{Account: "acct-8"})
	clk := clock.NewFake(now)
	a := &policy.Authenticator{Keys: keys, Pepper: p, Clock: clk}

	got, err := a.Authenticate(ctx, http.Header{"Authorization": {"Bearer " + k.Reveal()}})
	if err != nil || got.Account != "acct-7" {
		t.Fatalf("valid key: %+v %v", got, err)
	}
	if got, err := a.AuthenticateKey(ctx, k.Reveal()); err != nil || got.ID != k.ID() {
		t.Fatalf("AuthenticateKey: %v", err)
	}
	if _, err := a.AuthenticateKey(ctx, unknown.Reveal()); err == nil || err.Error() != "invalid API key" {
		t.Fatalf("unknown key: %v", err)
	}
	if _, err := a.Authenticate(ctx, http.Header{}); fault.KindOf(err) != fault.Unauthenticated {
		t.Fatalf("no key: %v", err)
	}
	clk.Advance(time.Hour)
	if _, err := a.AuthenticateKey(ctx, k.Reveal()); err == nil || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("expired: %v", err)
	}
	if !keys.Revoke(k.ID(), now) || keys.Revoke("nope", now) {
		t.Fatal("Revoke reports whether the key exists")
	}
	if _, err := a.AuthenticateKey(ctx, k.Reveal()); err == nil || !strings.Contains(err.Error(), "revoked") {
		t.Fatalf("revoked: %v", err)
	}
	broken := &policy.Authenticator{Keys: failingKeys{}, Pepper: p}
	_, err = broken.AuthenticateKey(ctx, k.Reveal())
	if fe := fault.From(err); fe.Kind != fault.Unavailable || strings.Contains(fe.Message, "locked") {
		t.Fatalf("store failure: %+v", fe)
	}
}

func TestEqualSecrets(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{"admin-key-0123456789", "admin-key-0123456789", true},
		{"admin-key-0123456789", "admin-key-0123456788", false},
		{"admin-key-0123456789", "admin-key", false},
		{"", "", false},
		{"x", "", false},
	}
	for _, c := range cases {
		if got := policy.EqualSecrets(c.a, c.b); got != c.want {
			t.Errorf("EqualSecrets(%q, %q) = %v", c.a, c.b, got)
		}
	}
}

func TestKeyAndPepperNeverPrint(t *testing.T) {
	raw := bytes.Repeat([]byte{'p'}, 32)
	p, _ := policy.NewPepper(raw)
	k, rec := issue(t, p, policy.KeySpec{Account: "a"})
	secret := k.Reveal()[18:]
	type holder struct {
		k policy.Key
		p policy.Pepper
	}
	for _, v := range []any{k, p, holder{k, p}, &holder{k, p}, rec} {
		var logs bytes.Buffer
		slog.New(slog.NewJSONHandler(&logs, nil)).Info("x", "v", v)
		j, _ := json.Marshal(v)
		for _, text := range []string{fmt.Sprint(v), fmt.Sprintf("%+v", v), fmt.Sprintf("%#v", v), string(j), logs.String()} {
			if strings.Contains(text, secret) || strings.Contains(text, string(raw)) || strings.Contains(text, fmt.Sprint(raw)) {
				t.Fatalf("%T prints a secret: %s", v, text)
			}
		}
	}
	if !strings.Contains(fmt.Sprint(k), k.ID()) {
		t.Fatal("a key should print its id")
	}
}

func TestLoadPepper(t *testing.T) {
	dir := t.TempDir()
	noEnv := func(string) (string, bool) { return "", false }
	p1, err := policy.LoadPepper(dir, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, "pepper.key"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("pepper.key: %v %v", st, err)
	}
	p2, err := policy.LoadPepper(dir, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	// The same pepper: a key issued under p1 verifies under p2.
	k, rec := issue(t, p1, policy.KeySpec{Account: "a"})
	if policy.VerifyKey(p2, k, rec, now) != policy.KeyValid {
		t.Fatal("a second start must load the same pepper")
	}
	fromEnv := func(v string) func(string) (string, bool) {
		return func(name string) (string, bool) { return v, name == "SLUICE_KEY_PEPPER" }
	}
	if _, err := policy.LoadPepper(t.TempDir(), fromEnv(strings.Repeat("ab", 48))); err != nil {
		t.Fatalf("a 48-byte hex pepper: %v", err)
	}
	_, err = policy.LoadPepper(t.TempDir(), fromEnv("c2hvcnQ="))
	if err == nil || !strings.Contains(err.Error(), "SLUICE_KEY_PEPPER: decodes to 5 bytes; it must be 32 to 64") {
		t.Fatalf("short pepper: %v", err)
	}
}

// FuzzParseKey checks that the parser never panics, and that whatever it
// accepts is a well-formed key that prints only its id.
func FuzzParseKey(f *testing.F) {
	k, _, _ := policy.IssueKey(pepper(f, 1), policy.KeySpec{Account: "a"}, now)
	f.Add(k.Reveal())
	f.Add("")
	f.Add("slk_")
	f.Add(forge("aaaaaaaaaaaaa", strings.Repeat("b", 52)))
	f.Add(strings.Repeat("slk_", 20))
	f.Fuzz(func(t *testing.T, text string) {
		got, err := policy.ParseKey(text)
		if err != nil {
			if err.Error() != "invalid API key" {
				t.Fatalf("message %q", err)
			}
			return
		}
		if got.Reveal() != text || len(text) != policy.KeyLen || !strings.HasPrefix(text, "slk_"+got.ID()+"_") {
			t.Fatalf("accepted %q as %v", text, got)
		}
		if strings.Contains(got.String(), text[18:]) {
			t.Fatal("String shows the secret")
		}
	})
}

// BenchmarkAuthenticate is the per-request cost of key authentication:
// header parsing, the check, an in-memory lookup and the HMAC.
func BenchmarkAuthenticate(b *testing.B) {
	p := pepper(b, 1)
	keys := policy.NewMemoryKeys()
	k, rec := issue(b, p, policy.KeySpec{Account: "a"})
	keys.Put(rec)
	a := &policy.Authenticator{Keys: keys, Pepper: p, Clock: clock.NewFake(now)}
	h := http.Header{"Authorization": {"Bearer " + k.Reveal()}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := a.Authenticate(ctx, h); err != nil {
			b.Fatal(err)
		}
	}
}

// PresentedKey applies the header rules without parsing the key: the admin
// key (SLUICE_ADMIN_KEY) may have any form.
func TestPresentedKeyTakesAnyForm(t *testing.T) {
	got, err := policy.PresentedKey(http.Header{"X-Api-Key": {" operator-secret "}})
	if err != nil || got != "operator-secret" {
		t.Fatalf("got %q, %v", got, err)
	}
	if _, err := policy.PresentedKey(http.Header{"X-Api-Key": {"operator-secret", "operator-secret"}}); err == nil {
		t.Fatal("a repeated X-API-Key is accepted")
	}
}
