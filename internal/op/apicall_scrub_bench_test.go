package op_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/datamodel"
	"github.com/sluicehq/sluice/internal/egress"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/vault"
)

// BenchmarkApiCallScrub is one ApiCall GET with a credential whose ~64 KiB
// JSON answer (1000 small objects) is scrubbed of it: the redactor's cost on
// the call path, building included (memoized per operation).
func BenchmarkApiCallScrub(b *testing.B) {
	var items []string
	for i := range 1000 {
		items = append(items, fmt.Sprintf(`{"id":%d,"name":"user %d","email":"u%d@example.com"}`, i, i, i))
	}
	body := `{"users":[` + strings.Join(items, ",") + `]}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	}))
	defer srv.Close()
	deps := &op.Deps{
		Client:      egress.NewClient(egress.Policy{AllowPrivate: []string{"127.0.0.1/32"}}),
		Permissions: policy.Permissions{Hosts: []string{"127.0.0.1"}, Credentials: []string{"api-token"}},
		Vault:       vault.NewMemory(map[string]op.Secret{"api-token": {Type: "bearer-token", Value: secret}}),
		Limits:      op.DefaultLimits(),
	}
	o, err := op.ApiCallOp.New(json.RawMessage(`{"method":"GET","url":"`+srv.URL+`/users","headers":{"Authorization":{"credentialRef":{"id":"api-token"}}},"outputPath":"/workflow/users","cache":false}`), deps)
	if err != nil {
		b.Fatal(err)
	}
	rc := &op.RunContext{Data: datamodel.New(nil), Account: "bench", OperationID: "get"}
	ctx := context.Background()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := o.Run(ctx, rc); err != nil {
			b.Fatal(err)
		}
	}
}
