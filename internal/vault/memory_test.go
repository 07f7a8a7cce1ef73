package vault_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/vault"
)

var _ op.Vault = (*vault.Memory)(nil)

func TestMemoryVault(t *testing.T) {
	src := map[string]op.Secret{"api": {Type: "bearer-token", Value: "s3cr3t-value"}}
	v := vault.NewMemory(src)
	src["api"] = op.Secret{Value: "changed"} // the vault holds its own copy
	v.Set("other", op.Secret{Type: "api-key", Value: "k"})

	cases := []struct {
		id      string
		want    op.Secret
		wantErr bool
	}{
		{"api", op.Secret{Type: "bearer-token", Value: "s3cr3t-value"}, false},
		{"other", op.Secret{Type: "api-key", Value: "k"}, false},
		{"missing", op.Secret{}, true},
	}
	for _, c := range cases {
		got, err := v.Resolve(context.Background(), c.id)
		if c.wantErr {
			fe, ok := fault.As(err)
			if !ok || fe.SpecType() != fault.PermissionError || !strings.Contains(fe.Message, c.id) {
				t.Fatalf("%s: want PermissionError naming the id, got %v", c.id, err)
			}
			b, _ := json.Marshal(fe.Object())
			if strings.Contains(string(b), "s3cr3t") {
				t.Fatal("error leaks a value")
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Fatalf("%s: got %+v %v", c.id, got, err)
		}
	}
	if len(v.IDs()) != 2 {
		t.Fatalf("IDs: %v", v.IDs())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := v.Resolve(ctx, "api"); err == nil {
		t.Fatal("a cancelled context must stop resolution")
	}
}
