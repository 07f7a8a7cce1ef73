package session

import (
	"encoding/json"
	"math/big"
	"regexp"
	"strings"
	"testing"
)

// wantInt is parseInt's contract worked out with exact rationals: b is an
// integer of at most 2^53 in magnitude.
func wantInt(b []byte) (int64, bool) {
	r, ok := new(big.Rat).SetString(string(b))
	if !ok || !r.IsInt() {
		return 0, false
	}
	n := r.Num()
	if n.CmpAbs(big.NewInt(1<<53)) > 0 {
		return 0, false
	}
	return n.Int64(), true
}

func TestParseInt(t *testing.T) {
	for _, s := range []string{
		"0", "-0", "7", "-7", "2.0", "1e3", "1E+3", "150e-1", "15e-1", "0.5e1", "0.05e1", "-0.0e-0",
		"123456789012345", "1234567890123456", "9007199254740992", "-9007199254740992",
		"9007199254740993", "9007199254740991.5", "4503599627370495.9", "4503599627370495.0",
		"90071992547409920e-1", "90071992547409930e-1", "0.00000000000000000000000000000000000000000005e42",
		"1e16", "1e15", "1e-1", "1e999999999999", "1e-999999999999", "0e999999999999",
		"12345678901234567890", "0.1", "100000000000000000000e-5",
	} {
		got, gok := parseInt([]byte(s))
		want, wok := wantInt([]byte(s))
		if got != want || gok != wok {
			t.Errorf("parseInt(%s) = %d, %v; want %d, %v", s, got, gok, want, wok)
		}
	}
}

var hugeExp = regexp.MustCompile(`[eE][+-]?0*[0-9]{5,}`)

// FuzzParseInt: parseInt agrees with exact arithmetic on every JSON number.
func FuzzParseInt(f *testing.F) {
	for _, s := range []string{"1", "-2.50e1", "9007199254740993", "4503599627370495.9", "1e-3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		s = strings.TrimSpace(s)
		var num json.Number
		if s == "" || !json.Valid([]byte(s)) || json.Unmarshal([]byte(s), &num) != nil || string(num) != s {
			return // not a JSON number
		}
		if hugeExp.MatchString(s) {
			return // big.Rat would build 10^exponent; parseInt's own bound is tested above
		}
		got, gok := parseInt([]byte(s))
		want, wok := wantInt([]byte(s))
		if got != want || gok != wok {
			t.Fatalf("parseInt(%s) = %d, %v; want %d, %v", s, got, gok, want, wok)
		}
	})
}
