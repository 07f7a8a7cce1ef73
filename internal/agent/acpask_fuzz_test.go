package agent

import (
	"encoding/json"
	"testing"

	acp "github.com/coder/acp-go-sdk"
)

// FuzzACPAnswer feeds any input to the two readers of a caller's input for
// an ACP agent: the prompt it becomes, and the option an answer names.
// Neither may panic; an option picked is one offered, and a refusal names
// the input.
func FuzzACPAnswer(f *testing.F) {
	for _, s := range []string{`{"text":"hi"}`, `{"optionId":"yes"}`, `{"answer":"allow_once"}`, `"Reject"`, `{"prompt":[{"type":"text","text":"x"}]}`,
		`{"prompt":[{"type":"image"}]}`, `{"prompt":7}`, `[]`, `null`, `{`} {
		f.Add([]byte(s))
	}
	opts := []acp.PermissionOption{{OptionId: "yes", Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce},
		{OptionId: "no", Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce}}
	f.Fuzz(func(t *testing.T, in []byte) {
		if blocks := promptOf(in); len(blocks) == 0 {
			t.Fatalf("no prompt for %q", in)
		}
		o, fe := pickOption("a", json.RawMessage(in), opts)
		switch {
		case fe == nil && o.OptionId != "yes" && o.OptionId != "no":
			t.Fatalf("picked %+v, not offered", o)
		case fe != nil && fe.Details["path"] != "input":
			t.Fatalf("refusal without its path: %v", fe)
		}
	})
}
