package discovery

import (
	"slices"
	"testing"
)

func TestTokenize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"getUserById", []string{"get", "user", "id"}},
		{"HTTPServerError", []string{"http", "server", "error"}},
		{"user_id, user-id and /users/{userId}/invoices", []string{"user", "id", "user", "id", "user", "user", "id", "invoic"}},
		{"Find the customer's unpaid invoices", []string{"find", "custom", "unpaid", "invoic"}},
		{"getV2Users", []string{"get", "v2", "user"}},
		{"OAuth2 tokens", []string{"auth2", "token"}}, // O|Auth2, as HTTP|Server: the one-letter O goes
		{"x y 7", []string{"7"}},
		{"Ünïcode Straße", []string{"ünïcode", "straße"}},
		{"", nil},
		{"\xff\xfe bad utf8", []string{"bad", "utf8"}},
	} {
		if got := Tokenize(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Tokenize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestTokenizeBoundsTokenLength(t *testing.T) {
	long := make([]byte, 500)
	for i := range long {
		long[i] = 'q'
	}
	for _, tok := range Tokenize(string(long)) {
		if len(tok) > maxTokenBytes {
			t.Fatalf("token of %d bytes", len(tok))
		}
	}
}

// The examples of Porter's paper and of his reference vocabulary.
func TestStemPorter(t *testing.T) {
	for in, want := range map[string]string{
		"caresses": "caress", "ponies": "poni", "ties": "ti", "caress": "caress", "cats": "cat",
		"feed": "feed", "agreed": "agre", "plastered": "plaster", "bled": "bled", "motoring": "motor",
		"sing": "sing", "conflated": "conflat", "troubled": "troubl", "sized": "size", "hopping": "hop",
		"tanned": "tan", "falling": "fall", "hissing": "hiss", "fizzed": "fizz", "failing": "fail",
		"filing": "file", "happy": "happi", "sky": "sky", "relational": "relat", "conditional": "condit",
		"rational": "ration", "valenci": "valenc", "digitizer": "digit", "conformabli": "conform",
		"radicalli": "radic", "differentli": "differ", "vileli": "vile", "analogousli": "analog",
		"vietnamization": "vietnam", "predication": "predic", "operator": "oper", "feudalism": "feudal",
		"decisiveness": "decis", "hopefulness": "hope", "callousness": "callous", "formaliti": "formal",
		"sensitiviti": "sensit", "sensibiliti": "sensibl", "triplicate": "triplic", "formative": "form",
		"formalize": "formal", "electriciti": "electr", "electrical": "electr", "hopeful": "hope",
		"goodness": "good", "revival": "reviv", "allowance": "allow", "inference": "infer",
		"airliner": "airlin", "gyroscopic": "gyroscop", "adjustable": "adjust", "defensible": "defens",
		"irritant": "irrit", "replacement": "replac", "adjustment": "adjust", "dependent": "depend",
		"adoption": "adopt", "homologou": "homolog", "communism": "commun", "activate": "activ",
		"angulariti": "angular", "homologous": "homolog", "effective": "effect", "bowdlerize": "bowdler",
		"probate": "probat", "rate": "rate", "cease": "ceas", "controll": "control", "roll": "roll",
		"generalizations": "gener", "oscillators": "oscil", "invoices": "invoic", "invoice": "invoic",
		"v2": "v2", "ab": "ab", "straße": "straße",
	} {
		if got := stemPorter(in); got != want {
			t.Errorf("stemPorter(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStemLight(t *testing.T) {
	for in, want := range map[string]string{
		"invoices": "invoic", "customers": "customer", "shipping": "ship", "payments": "payment",
		"generalizations": "generalization", "created": "creat", "refunded": "refund",
	} {
		if got := stemLight(in); got != want {
			t.Errorf("stemLight(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseQuery(t *testing.T) {
	q := ParseQuery(`kind:operation tag:"Sales Ops" api:crm -archived refund the Payments "kind:agent" kind:operation`)
	if !slices.Equal(q.Kinds, []Kind{KindOperation}) || !slices.Equal(q.Tags, []string{"sales ops"}) ||
		!slices.Equal(q.Sources, []string{"crm"}) || !slices.Equal(q.Exclude, []string{"archiv"}) ||
		!slices.Equal(q.Terms, []string{"refund", "payment", "kind", "agent"}) {
		t.Fatalf("%+v", q)
	}
	if q := ParseQuery("nope:thing -"); !slices.Equal(q.Terms, []string{"nope", "thing"}) || len(q.Exclude) != 0 {
		t.Fatalf("%+v", q)
	}
}
