package cli_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/gateway"
)

// TestVaultRotate follows docs/configuration.md, "Rotating the master key":
// a credential sealed under the first key, the key moved aside as a previous
// one, a restart (a new master.key), then `sluice vault rotate` re-seals it
// under the new key; a second rotation has nothing to do.
func TestVaultRotate(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("SLUICE_MASTER_KEY", "")
	t.Setenv("SLUICE_MASTER_KEY_PREVIOUS", "")
	start := func() func() {
		cfg := config.Defaults()
		cfg.DataDir = dir
		cfg.AdminKey = config.NewSecret("rotate-admin-key-0123456789abcdef0123456789")
		app, err := gateway.Open(context.Background(), &cfg, gateway.Options{})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(app.Server.Handler())
		t.Setenv("SLUICE_URL", srv.URL)
		t.Setenv("SLUICE_ADMIN_KEY", cfg.AdminKey.Reveal())
		return func() { srv.Close(); _ = app.Close() }
	}
	keyOf := func() string {
		t.Helper()
		code, out, errb := sluice(t, "", "vault", "list")
		var list []struct {
			ID    string `json:"id"`
			KeyID string `json:"key_id"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) != 1 {
			t.Fatalf("vault list: %d %s %s", code, out, errb)
		}
		return list[0].KeyID
	}

	stop := start()
	if code, out, errb := sluice(t, "rotate-secret-value\n", "vault", "put", "gh", "--type", "bearer-token"); code != 0 {
		t.Fatalf("put: %d %s %s", code, out, errb)
	}
	oldKey := keyOf()
	stop()
	if err := os.Rename(filepath.Join(dir, "master.key"), filepath.Join(dir, "master.key.old")); err != nil {
		t.Fatal(err)
	}
	stop = start()
	defer func() { stop() }()

	code, out, errb := sluice(t, "", "vault", "rotate")
	var rep struct {
		KeyID                             string `json:"key_id"`
		Total, Resealed, Current, Changed int
	}
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || rep.Total != 1 || rep.Resealed != 1 || rep.Current != 0 || rep.KeyID == oldKey {
		t.Fatalf("rotate: %d %s %s", code, out, errb)
	}
	if got := keyOf(); got != rep.KeyID {
		t.Fatalf("after rotation the credential is under %s, want %s", got, rep.KeyID)
	}
	code, out, _ = sluice(t, "", "vault", "rotate")
	if code != 0 || !strings.Contains(out, `"resealed": 0`) || !strings.Contains(out, `"current": 1`) {
		t.Fatalf("second rotate: %d %s", code, out)
	}

	// resealed + current == total: the previous key may go; the server starts
	// without it and finds everything current.
	stop()
	if err := os.Remove(filepath.Join(dir, "master.key.old")); err != nil {
		t.Fatal(err)
	}
	stop = start()
	code, out, errb = sluice(t, "", "vault", "rotate")
	if code != 0 || !strings.Contains(out, `"current": 1`) {
		t.Fatalf("rotate without the previous key: %d %s %s", code, out, errb)
	}
	t.Setenv("SLUICE_ADMIN_KEY", "wrong-admin-key-0123456789abcdef0123456789")
	if code, _, errb = sluice(t, "", "vault", "rotate"); code != 1 || !strings.Contains(errb, "HTTP 401") {
		t.Fatalf("rotate with a wrong admin key: %d %s", code, errb)
	}
}
