package a2s

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Canonical JSON (RFC 8785, JSON Canonicalization Scheme): objects with keys
// sorted by their UTF-16 code units, no whitespace, strings with only the
// escapes ECMAScript's JSON.stringify makes, and numbers written the way
// ECMAScript's Number.prototype.toString writes a double.

// MaxCanonicalBytes bounds the canonical form. A YAML document may repeat a
// large anchored value through aliases; the parser bounds the values, this
// bounds the bytes.
const MaxCanonicalBytes = 32 << 20

// ErrCanonicalTooLarge is returned when the canonical form would pass
// MaxCanonicalBytes.
var ErrCanonicalTooLarge = fmt.Errorf("the canonical form is larger than %d bytes", MaxCanonicalBytes)

// Canonical writes n as RFC 8785 canonical JSON.
func Canonical(n *Node) ([]byte, error) {
	var buf bytes.Buffer
	if err := writeCanonical(&buf, n); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func writeCanonical(buf *bytes.Buffer, n *Node) error {
	if buf.Len() > MaxCanonicalBytes {
		return ErrCanonicalTooLarge
	}
	if n == nil {
		buf.WriteString("null")
		return nil
	}
	switch n.Kind {
	case KindNull:
		buf.WriteString("null")
	case KindBool:
		buf.WriteString(strconv.FormatBool(n.Bool))
	case KindNumber:
		s, err := FormatNumber(n.Num)
		if err != nil {
			return err
		}
		buf.WriteString(s)
	case KindString:
		writeCanonicalString(buf, n.Str)
	case KindArray:
		buf.WriteByte('[')
		for i, it := range n.Items {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeCanonical(buf, it); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case KindObject:
		keys := sortedMembers(n.Keys)
		buf.WriteByte('{')
		for i, m := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeCanonicalString(buf, m.Name)
			buf.WriteByte(':')
			if err := writeCanonical(buf, m.Value); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	default:
		return fmt.Errorf("node of unknown kind %d", n.Kind)
	}
	return nil
}

// sortedMembers orders members by the UTF-16 code units of their names (RFC
// 8785 §3.2.3). Comparing UTF-8 bytes would differ for characters above
// U+FFFF against U+E000..U+FFFF.
func sortedMembers(ms []*Member) []*Member {
	out := slices.Clone(ms)
	slices.SortFunc(out, func(a, b *Member) int { return compareUTF16(a.Name, b.Name) })
	return out
}

func compareUTF16(a, b string) int {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			ua, ub := utf16Units(ra), utf16Units(rb)
			if c := slices.Compare(ua, ub); c != 0 {
				return c
			}
		}
		a, b = a[na:], b[nb:]
	}
	return len(a) - len(b) // the shorter one is a prefix and sorts first
}

func utf16Units(r rune) []uint16 {
	if r < 0x10000 {
		return []uint16{uint16(r)}
	}
	r1, r2 := utf16.EncodeRune(r)
	return []uint16{uint16(r1), uint16(r2)}
}

const hexDigits = "0123456789abcdef"

// writeCanonicalString escapes as JSON.stringify: \" \\ \b \f \n \r \t,
// other controls as \u00xx (lower-case hex), everything else as UTF-8.
func writeCanonicalString(buf *bytes.Buffer, s string) {
	buf.WriteByte('"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		buf.WriteString(s[start:i])
		switch c {
		case '"':
			buf.WriteString(`\"`)
		case '\\':
			buf.WriteString(`\\`)
		case '\b':
			buf.WriteString(`\b`)
		case '\f':
			buf.WriteString(`\f`)
		case '\n':
			buf.WriteString(`\n`)
		case '\r':
			buf.WriteString(`\r`)
		case '\t':
			buf.WriteString(`\t`)
		default:
			buf.WriteString(`\u00`)
			buf.WriteByte(hexDigits[c>>4])
			buf.WriteByte(hexDigits[c&0xf])
		}
		start = i + 1
	}
	buf.WriteString(s[start:])
	buf.WriteByte('"')
}

// ErrNumberNotFinite: NaN and the infinities have no JSON form.
var ErrNumberNotFinite = errors.New("NaN and Infinity have no JSON form")

// FormatNumber writes a double as ECMAScript's Number::toString does (ECMA-262
// §6.1.6.1.20), which RFC 8785 §3.2.2.3 requires: the shortest digits that
// read back to the same double, in plain notation for exponents from -7 to
// 20 and in exponent notation (1e+21, 1.5e-7) outside, and -0 as 0.
func FormatNumber(f float64) (string, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", ErrNumberNotFinite
	}
	if f == 0 {
		return "0", nil
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	// Go's shortest formatting gives the same digits as ECMAScript's: the
	// shortest that round-trip, the closest to the value among them.
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddddde±XX
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	k := len(digits)
	n := x + 1 // the decimal point sits after n digits
	var out string
	switch {
	case k <= n && n <= 21:
		out = digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		out = digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		out = "0." + strings.Repeat("0", -n) + digits
	default:
		es := "+"
		if n-1 < 0 {
			es = "-"
		}
		exp := strconv.Itoa(absInt(n - 1))
		if k == 1 {
			out = digits + "e" + es + exp
		} else {
			out = digits[:1] + "." + digits[1:] + "e" + es + exp
		}
	}
	return sign + out, nil
}

func absInt(i int) int {
	if i < 0 {
		return -i
	}
	return i
}
