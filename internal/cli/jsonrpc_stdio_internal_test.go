package cli

import (
	"context"
	"io"
	"strings"
	"testing"
)

func TestJSONRPCHead(t *testing.T) {
	for _, c := range []struct{ line, id, method string }{
		{`{"jsonrpc":"2.0","id":7,"result":{"big":[1,2,3]}}`, "7", ""},
		{`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{}}`, `"a"`, "tools/call"},
		{`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`, "", ""},
		{`{"result":{},"jsonrpc":"2.0","id":3}`, "3", ""},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`, "", ""},
		{`not json`, "", ""},
	} {
		id, method := jsonrpcHead([]byte(c.line))
		if id != c.id || (id != "" && method != c.method) {
			t.Errorf("%s: id %q method %q, want %q %q", c.line, id, method, c.id, c.method)
		}
	}
}

// A message over the bound ends the input with an error naming the bound;
// the messages before it are read whole, however the reader splits them.
func TestRPCStdioBoundsAMessage(t *testing.T) {
	small := `{"jsonrpc":"2.0","method":"a"}` + "\n"
	s := newRPCStdio(context.Background(), strings.NewReader(small+strings.Repeat("x", 200)+"\n"), io.Discard)
	s.max = 100
	got, err := io.ReadAll(io.LimitReader(s, int64(len(small))))
	if err != nil || string(got) != small {
		t.Fatalf("the first message: %q %v", got, err)
	}
	if _, err := io.ReadAll(s); err == nil || !strings.Contains(err.Error(), "over 100 bytes") {
		t.Fatalf("a message over the bound: %v", err)
	}
}
