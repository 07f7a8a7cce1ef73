package config_test

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sluicehq/sluice/internal/config"
)

func TestDecodeKey(t *testing.T) {
	raw := bytes.Repeat([]byte{0xfb, 0xff, 0x01}, 11)[:32] // has + and / in base64
	cases := []struct {
		name, text string
		ok         bool
	}{
		{"std", base64.StdEncoding.EncodeToString(raw), true},
		{"raw std", base64.RawStdEncoding.EncodeToString(raw), true},
		{"url", base64.URLEncoding.EncodeToString(raw), true},
		{"raw url", base64.RawURLEncoding.EncodeToString(raw), true},
		{"hex", hex.EncodeToString(raw), true},
		{"hex upper with newline", strings.ToUpper(hex.EncodeToString(raw)) + "\n", true},
		{"empty", "  \n", false},
		{"garbage", "this is not a key!", false},
	}
	for _, c := range cases {
		got, err := config.DecodeKey(c.text)
		if c.ok != (err == nil) {
			t.Fatalf("%s: err %v", c.name, err)
		}
		if c.ok && !bytes.Equal(got, raw) {
			t.Fatalf("%s: decoded %x", c.name, got)
		}
		if err != nil && strings.Contains(err.Error(), strings.TrimSpace(c.text)) && strings.TrimSpace(c.text) != "" {
			t.Fatalf("%s: the error quotes the text: %v", c.name, err)
		}
	}
	if config.EncodeKey(raw) != base64.StdEncoding.EncodeToString(raw) {
		t.Fatal("EncodeKey is standard base64")
	}
}

func TestLoadKeyConcurrentFirstStart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	src := config.KeySource{What: "test key", Env: "TEST_KEY", Dir: dir, File: "test.key", MinLen: 32, MaxLen: 32, GenLen: 32,
		LookupEnv: func(string) (string, bool) { return "", false }}
	const n = 8
	keys := make([][]byte, n)
	created := make([]bool, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k, err := config.LoadKey(src)
			if err != nil {
				t.Error(err)
				return
			}
			keys[i], created[i] = k.Bytes, k.Created
		}()
	}
	wg.Wait()
	winners := 0
	for i := range n {
		if !bytes.Equal(keys[i], keys[0]) {
			t.Fatal("concurrent first starts must agree on one key")
		}
		if created[i] {
			winners++
		}
	}
	if winners != 1 {
		t.Fatalf("%d starters created the file, want 1", winners)
	}
	st, err := os.Stat(dir)
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("data dir mode: %v %v", st.Mode().Perm(), err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
}

func TestReadSecretFileRefusesDirectories(t *testing.T) {
	if _, err := config.ReadSecretFile(t.TempDir()); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("directory: %v", err)
	}
}

// FuzzDecodeKey checks that decoding never panics and that an error never
// quotes its input.
func FuzzDecodeKey(f *testing.F) {
	f.Add("c2VjcmV0LWtleS1tYXRlcmlhbC0xMjM0NTY3ODkwMTI=")
	f.Add("00ff")
	f.Add("====")
	f.Fuzz(func(t *testing.T, text string) {
		b, err := config.DecodeKey(text)
		if err != nil {
			if s := strings.TrimSpace(text); len(s) > 8 && strings.Contains(err.Error(), s) {
				t.Fatalf("error quotes the input: %v", err)
			}
			return
		}
		if len(b) > len(text) {
			t.Fatalf("decoded %d bytes from %d characters", len(b), len(text))
		}
	})
}
