package a2s_test

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/protocol/a2s"
)

// RFC 8785 Appendix B: IEEE 754 bits and their canonical text.
var rfc8785Numbers = []struct {
	bits string
	want string
}{
	{"0000000000000000", "0"},
	{"8000000000000000", "0"},
	{"0000000000000001", "5e-324"},
	{"8000000000000001", "-5e-324"},
	{"7fefffffffffffff", "1.7976931348623157e+308"},
	{"ffefffffffffffff", "-1.7976931348623157e+308"},
	{"4340000000000000", "9007199254740992"},
	{"c340000000000000", "-9007199254740992"},
	{"4430000000000000", "295147905179352830000"},
	{"44b52d02c7e14af5", "9.999999999999997e+22"},
	{"44b52d02c7e14af6", "1e+23"},
	{"44b52d02c7e14af7", "1.0000000000000001e+23"},
	{"444b1ae4d6e2ef4e", "999999999999999700000"},
	{"444b1ae4d6e2ef4f", "999999999999999900000"},
	{"444b1ae4d6e2ef50", "1e+21"},
	{"3eb0c6f7a0b5ed8c", "9.999999999999997e-7"},
	{"3eb0c6f7a0b5ed8d", "0.000001"},
	{"41b3de4355555553", "333333333.3333332"},
	{"41b3de4355555554", "333333333.33333325"},
	{"41b3de4355555555", "333333333.3333333"},
	{"41b3de4355555556", "333333333.3333334"},
	{"41b3de4355555557", "333333333.33333343"},
	{"becbf647612f3696", "-0.0000033333333333333333"},
	{"43143ff3c1cb0959", "1424953923781206.2"},
}

func fromBits(t *testing.T, h string) float64 {
	t.Helper()
	b, err := hex.DecodeString(h)
	if err != nil {
		t.Fatal(err)
	}
	return math.Float64frombits(binary.BigEndian.Uint64(b))
}

func TestFormatNumberRFC8785(t *testing.T) {
	for _, c := range rfc8785Numbers {
		got, err := a2s.FormatNumber(fromBits(t, c.bits))
		if err != nil || got != c.want {
			t.Errorf("%s: got %q %v, want %q", c.bits, got, err, c.want)
		}
	}
	for _, bad := range []string{"7fffffffffffffff", "7ff0000000000000", "fff0000000000000"} {
		if _, err := a2s.FormatNumber(fromBits(t, bad)); err == nil {
			t.Errorf("%s (NaN or Infinity) must be refused", bad)
		}
	}
}

// TestFormatNumberECMAScript compares with String(x) of a JavaScript engine
// (node 20) for 3276 doubles: random bit patterns and values at the edges of
// plain and exponent notation (testdata/jcs/es6numbers.txt).
func TestFormatNumberECMAScript(t *testing.T) {
	f, err := os.Open("testdata/jcs/es6numbers.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		bits, want, _ := strings.Cut(sc.Text(), " ")
		x := fromBits(t, bits)
		got, err := a2s.FormatNumber(x)
		if err != nil || got != want {
			t.Errorf("%s (%v): got %q, JavaScript writes %q", bits, x, got, want)
		}
		if back, err := strconv.ParseFloat(got, 64); err != nil || back != x && !(x == 0 && back == 0) {
			t.Errorf("%s: %q does not read back", bits, got)
		}
		n++
	}
	if n < 3000 {
		t.Fatalf("only %d vectors", n)
	}
}

func canonical(t *testing.T, in string) string {
	t.Helper()
	tree, err := a2s.ParseTree([]byte(in), a2s.Options{Format: a2s.FormatJSON})
	if err != nil {
		t.Fatal(err)
	}
	out, err := a2s.Canonical(tree)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func TestCanonicalRFC8785Examples(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{ // RFC 8785 §3.2.2
			"serialization",
			`{
  "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}`,
			`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`,
		},
		{ // RFC 8785 §3.2.3: keys sorted by UTF-16 code units
			"sorting",
			`{
  "\u20ac": "Euro Sign",
  "\r": "Carriage Return",
  "\ufb33": "Hebrew Letter Dalet With Dagesh",
  "1": "One",
  "\ud83d\ude00": "Emoji: Grinning Face",
  "\u0080": "Control",
  "\u00f6": "Latin Small Letter O With Diaeresis"
}`,
			"{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u0080\":\"Control\",\"ö\":\"Latin Small Letter O With Diaeresis\",\"€\":\"Euro Sign\",\"😀\":\"Emoji: Grinning Face\",\"דּ\":\"Hebrew Letter Dalet With Dagesh\"}",
		},
		{"nested and empty", `{"b":[{}, [], {"z":1,"a":{"y":-0.0,"x":1e2}}],"a":""}`, `{"a":"","b":[{},[],{"a":{"x":100,"y":0},"z":1}]}`},
		{"controls", `["\u0000\u001f\u007f\u2028\b\f\t"]`, "[\"\\u0000\\u001f\u007f\u2028\\b\\f\\t\"]"},
	}
	for _, c := range cases {
		if got := canonical(t, c.in); got != c.want {
			t.Errorf("%s:\ngot  %s\nwant %s", c.name, got, c.want)
		}
	}
}

// TestCanonicalYAMLEqualsJSON: a YAML document and the same data in JSON give
// the same canonical form, whatever YAML spelling the values use. (goccy
// reads 1e3 as a string, as YAML 1.1 does: a float needs a dot, 1.0e+3.)
func TestCanonicalYAMLEqualsJSON(t *testing.T) {
	yml := `
b: &x {k: 1.50, j: [0x10, 1.0e+3, .5]}
a: *x
c: !!str 123
d: |
  two
  lines
e: ~
"200": yes-no
m:
  <<: *x
  k: 2
`
	js := `{"b":{"k":1.5,"j":[16,1000,0.5]},"a":{"k":1.5,"j":[16,1000,0.5]},"c":"123","d":"two\nlines\n","e":null,"200":"yes-no","m":{"k":2,"j":[16,1000,0.5]}}`
	ty, err := a2s.ParseTree([]byte(yml), a2s.Options{Format: a2s.FormatYAML})
	if err != nil {
		t.Fatal(err)
	}
	cy, err := a2s.Canonical(ty)
	if err != nil {
		t.Fatal(err)
	}
	if cj := canonical(t, js); string(cy) != cj {
		t.Errorf("YAML:\n%s\nJSON:\n%s", cy, cj)
	}
}
