package op_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/datamodel"
	"github.com/sluicehq/sluice/internal/egress"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/policy"
)

// BenchmarkApiCallHeapPerJSONByte is what one ApiCall of a large JSON array
// (20k small objects, about 1.5 MB) allocates per byte of the response:
// reading the body, decoding it and the decoded data itself (alloc-B/json-B).
func BenchmarkApiCallHeapPerJSONByte(b *testing.B) {
	var sb strings.Builder
	sb.WriteByte('[')
	for i := range 20000 {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"id":%d,"name":"user-%d","active":%v,"score":%g}`, i, i, i%2 == 0, float64(i%1000)/7)
	}
	sb.WriteByte(']')
	body := sb.String()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		_, _ = w.Write([]byte(body))
	}))
	defer srv.Close()
	deps := &op.Deps{
		Client:      egress.NewClient(egress.Policy{AllowPrivate: []string{"127.0.0.1/32"}}),
		Permissions: policy.Permissions{Hosts: []string{"127.0.0.1"}},
		Limits:      op.DefaultLimits(),
	}
	o, err := op.ApiCallOp.New(json.RawMessage(`{"method":"GET","url":"`+srv.URL+`/users","outputPath":"/workflow/users","cache":false}`), deps)
	if err != nil {
		b.Fatal(err)
	}
	rc := &op.RunContext{Data: datamodel.New(nil), Account: "bench", OperationID: "get"}
	ctx := context.Background()
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := o.Run(ctx, rc); err != nil {
			b.Fatal(err)
		}
	}
}
