package cli

import "testing"

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
