package vault_test

import (
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/vault"
)

// env is a fake environment for LoadKeyring.
func env(kv map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := kv[k]; return v, ok }
}

func keyBytes(fill byte) []byte {
	b := make([]byte, 32)
	for i := range b {
		b[i] = fill + byte(i)
	}
	return b
}

func TestLoadKeyringCreatesFileOnFirstStart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	r1, err := vault.LoadKeyring(vault.KeyringSource{DataDir: dir, LookupEnv: env(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if !r1.Created() || r1.Origin() != filepath.Join(dir, "master.key") {
		t.Fatalf("first start: created=%v origin=%q", r1.Created(), r1.Origin())
	}
	st, err := os.Stat(filepath.Join(dir, "master.key"))
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && st.Mode().Perm() != 0o600 {
		t.Fatalf("master.key mode %v, want 0600", st.Mode().Perm())
	}
	r2, err := vault.LoadKeyring(vault.KeyringSource{DataDir: dir, LookupEnv: env(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if r2.Created() || r2.CurrentID() != r1.CurrentID() {
		t.Fatalf("second start must load the same key: %s vs %s (created %v)", r2.CurrentID(), r1.CurrentID(), r2.Created())
	}
}

func TestLoadKeyringFromEnv(t *testing.T) {
	raw := keyBytes(1)
	want, err := vault.NewMasterKey(raw)
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"base64":          base64.StdEncoding.EncodeToString(raw),
		"base64 unpadded": base64.RawStdEncoding.EncodeToString(raw),
		"base64 url":      base64.URLEncoding.EncodeToString(raw),
		"hex":             hex.EncodeToString(raw),
		"hex upper, ws":   "  " + strings.ToUpper(hex.EncodeToString(raw)) + "\n",
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			r, err := vault.LoadKeyring(vault.KeyringSource{DataDir: dir, LookupEnv: env(map[string]string{"SLUICE_MASTER_KEY": text})})
			if err != nil {
				t.Fatal(err)
			}
			if r.CurrentID() != want.ID() || r.Origin() != "SLUICE_MASTER_KEY" {
				t.Fatalf("id %s origin %s", r.CurrentID(), r.Origin())
			}
			if _, err := os.Stat(filepath.Join(dir, "master.key")); !os.IsNotExist(err) {
				t.Fatal("a key from the environment must not create master.key")
			}
		})
	}
}

func TestLoadKeyringRefusals(t *testing.T) {
	short := base64.StdEncoding.EncodeToString(keyBytes(7)[:16])
	good := base64.StdEncoding.EncodeToString(keyBytes(9))
	cases := []struct {
		name    string
		env     map[string]string
		file    string // content of master.key, if any
		mode    os.FileMode
		want    string
		secrets []string // must not appear in the message
	}{
		{name: "env too short", env: map[string]string{"SLUICE_MASTER_KEY": short},
			want: "SLUICE_MASTER_KEY: decodes to 16 bytes; it must be exactly 32", secrets: []string{short}},
		{name: "env not base64", env: map[string]string{"SLUICE_MASTER_KEY": "not a key at all!"},
			want: "SLUICE_MASTER_KEY: is neither base64 nor hex", secrets: []string{"not a key at all"}},
		{name: "file readable by others", file: good, mode: 0o644, want: "has mode 0644; it must be readable by its owner only", secrets: []string{good}},
		{name: "file group readable", file: good, mode: 0o640, want: "has mode 0640", secrets: []string{good}},
		{name: "file wrong length", file: short, mode: 0o600, want: "decodes to 16 bytes", secrets: []string{short}},
		{name: "file too large", file: strings.Repeat("A", 2000), mode: 0o600, want: "is larger than 1024 bytes"},
		{name: "previous env bad", env: map[string]string{"SLUICE_MASTER_KEY": good, "SLUICE_MASTER_KEY_PREVIOUS": good + "," + short},
			want: "SLUICE_MASTER_KEY_PREVIOUS entry 2: a master key is 32 bytes, not 16", secrets: []string{short, good}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.mode&0o077 != 0 && runtime.GOOS == "windows" {
				t.Skip("no Unix permissions")
			}
			dir := t.TempDir()
			if c.file != "" {
				path := filepath.Join(dir, "master.key")
				if err := os.WriteFile(path, []byte(c.file), c.mode); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(path, c.mode); err != nil { // umask may have narrowed it
					t.Fatal(err)
				}
			}
			_, err := vault.LoadKeyring(vault.KeyringSource{DataDir: dir, LookupEnv: env(c.env)})
			if err == nil {
				t.Fatal("want an error")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not say %q", err, c.want)
			}
			for _, s := range c.secrets {
				if strings.Contains(err.Error(), s) {
					t.Fatalf("error %q quotes key material", err)
				}
			}
		})
	}
}

func TestLoadKeyringPreviousKeys(t *testing.T) {
	dir := t.TempDir()
	cur, prevEnv, prevFile := keyBytes(1), keyBytes(2), keyBytes(3)
	if err := os.WriteFile(filepath.Join(dir, "master.key.2026-10"), []byte(hex.EncodeToString(prevFile)), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := vault.LoadKeyring(vault.KeyringSource{DataDir: dir, LookupEnv: env(map[string]string{
		"SLUICE_MASTER_KEY":          base64.StdEncoding.EncodeToString(cur),
		"SLUICE_MASTER_KEY_PREVIOUS": " " + base64.StdEncoding.EncodeToString(prevEnv) + " ,",
	})})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, b := range [][]byte{cur, prevEnv, prevFile} {
		k, _ := vault.NewMasterKey(b)
		want = append(want, k.ID())
	}
	got := r.IDs()
	if len(got) != 3 {
		t.Fatalf("ids %v, want the three keys %v", got, want)
	}
	for _, id := range want {
		if !strings.Contains(strings.Join(got, ","), id) {
			t.Fatalf("ids %v miss %s", got, id)
		}
	}
	if r.CurrentID() != want[0] {
		t.Fatalf("current %s, want %s", r.CurrentID(), want[0])
	}
}

func TestMasterKeyID(t *testing.T) {
	a, _ := vault.NewMasterKey(keyBytes(1))
	a2, _ := vault.NewMasterKey(keyBytes(1))
	b, _ := vault.NewMasterKey(keyBytes(2))
	if a.ID() != a2.ID() || a.ID() == b.ID() || len(a.ID()) != 16 {
		t.Fatalf("ids: %s %s %s", a.ID(), a2.ID(), b.ID())
	}
	if _, err := vault.NewMasterKey(make([]byte, 31)); err == nil {
		t.Fatal("31 bytes must be refused")
	}
	g, err := vault.GenerateMasterKey()
	if err != nil {
		t.Fatal(err)
	}
	back, err := vault.ParseMasterKey(g.Export())
	if err != nil || back.ID() != g.ID() {
		t.Fatalf("Export/Parse round trip: %v %s %s", err, back.ID(), g.ID())
	}
}
