package op_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
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
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	benchApiCallGET(b, srv.URL+"/users")
}
