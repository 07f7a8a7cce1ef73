package op_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/sluicehq/sluice/internal/datamodel"
	"github.com/sluicehq/sluice/internal/egress"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/policy"
)

// BenchmarkApiCallGET compares one ApiCall GET (cache off) with a raw net/http
// GET of the same URL through an identically configured client. The goal is
// ApiCall at >= 0.8x the raw requests per second (raw ns/op / ApiCall ns/op).
func BenchmarkApiCallGET(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"users":[{"id":1,"name":"ann","status":"active"},{"id":2,"name":"bob","status":"idle"}]}`)
	}))
	defer srv.Close()
	policyAllow := egress.Policy{AllowPrivate: []string{"127.0.0.1/32"}}

	b.Run("raw", func(b *testing.B) {
		client := egress.NewClient(policyAllow)
		ctx := context.Background()
		for b.Loop() {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/users", nil)
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})

	b.Run("ApiCall", func(b *testing.B) { benchApiCallGET(b, srv.URL+"/users") })
}

// benchApiCallGET runs an ApiCall GET of url (cache off) b.N times.
func benchApiCallGET(b *testing.B, url string) {
	deps := &op.Deps{
		Client:      egress.NewClient(egress.Policy{AllowPrivate: []string{"127.0.0.1/32"}}),
		Permissions: policy.Permissions{Hosts: []string{"127.0.0.1"}},
		Limits:      op.DefaultLimits(),
	}
	o, err := op.ApiCallOp.New(json.RawMessage(`{"method":"GET","url":"`+url+`","outputPath":"/workflow/users","cache":false}`), deps)
	if err != nil {
		b.Fatal(err)
	}
	rc := &op.RunContext{Data: datamodel.New(nil), Account: "bench", OperationID: "get"}
	ctx := context.Background()
	for b.Loop() {
		if _, err := o.Run(ctx, rc); err != nil {
			b.Fatal(err)
		}
	}
}
