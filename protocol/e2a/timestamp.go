package e2a

import (
	"math"
	"strings"
	"time"
)

// Timestamps are written like the reference (Python's isoformat of an aware UTC
// datetime): 2026-03-28T12:00:00+00:00, with .ffffff when the microseconds are
// not zero. A time with nanoseconds below the microsecond keeps all nine digits
// rather than lose them.

// AppendTimestamp appends t in the reference's form, converted to UTC.
func AppendTimestamp(b []byte, t time.Time) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	hour, minute, sec := t.Clock()
	b = appendInt(b, year, 4)
	b = append(b, '-')
	b = appendInt(b, int(month), 2)
	b = append(b, '-')
	b = appendInt(b, day, 2)
	b = append(b, 'T')
	b = appendInt(b, hour, 2)
	b = append(b, ':')
	b = appendInt(b, minute, 2)
	b = append(b, ':')
	b = appendInt(b, sec, 2)
	if ns := t.Nanosecond(); ns != 0 {
		b = append(b, '.')
		if ns%1000 == 0 {
			b = appendInt(b, ns/1000, 6)
		} else {
			b = appendInt(b, ns, 9)
		}
	}
	return append(b, "+00:00"...)
}

// FormatTimestamp returns t in the reference's form.
func FormatTimestamp(t time.Time) string { return string(AppendTimestamp(nil, t)) }

func appendInt(b []byte, v, width int) []byte {
	var buf [20]byte
	i := len(buf)
	for v > 0 || width > 0 {
		i--
		buf[i] = byte('0' + v%10)
		v /= 10
		width--
	}
	return append(b, buf[i:]...)
}

// Bounds of a timestamp: years 1 to 9999, what RFC 3339 and Python can write.
var (
	minTime = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
	maxTime = time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)
)

// ParseTimestamp reads an RFC 3339 time with an offset and returns it in UTC.
// As RFC 3339 allows (§5.6 and its note), the 'T' may be a lowercase 't' or a
// space and the 'Z' a lowercase 'z'. The time in UTC must lie in the years 1
// to 9999, which is what RFC 3339 can write back.
func ParseTimestamp(s string) (time.Time, error) {
	if len(s) > 10 && (s[10] == ' ' || s[10] == 't') {
		s = s[:10] + "T" + s[11:]
	}
	if n := len(s); n > 0 && s[n-1] == 'z' {
		s = s[:n-1] + "Z"
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		if _, naive := time.Parse("2006-01-02T15:04:05.999999999", s); naive == nil {
			return time.Time{}, &Error{Message: "is not an RFC 3339 time: it has no UTC offset (add +00:00)"}
		}
		return time.Time{}, &Error{Message: "is not an RFC 3339 time such as 2026-03-28T12:00:00+00:00"}
	}
	if t = t.UTC(); t.Before(minTime) || t.After(maxTime) {
		return time.Time{}, &Error{Message: "is outside the years 1 to 9999 in UTC"}
	}
	return t, nil
}

// epochTime converts epoch seconds written as a JSON number to a time, exact to
// the microsecond (the text is read as a decimal, not through a float, so 1.15
// is 1 s and 150000 µs); digits below the microsecond round half to even, as
// Python's datetime.fromtimestamp does.
func epochTime(text []byte) (time.Time, bool) {
	s := string(text)
	if strings.ContainsAny(s, "eE") {
		f, ok := parseFloat(s)
		if !ok || math.IsNaN(f) || f < float64(minTime.Unix()) || f > float64(maxTime.Unix()) {
			return time.Time{}, false
		}
		return time.UnixMicro(int64(math.RoundToEven(f * 1e6))).UTC(), true
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac, _ := strings.Cut(s, ".")
	if len(intPart) > 12 {
		return time.Time{}, false
	}
	var sec int64
	for _, c := range intPart {
		sec = sec*10 + int64(c-'0')
	}
	var micro int64
	for i := 0; i < 6; i++ {
		micro *= 10
		if i < len(frac) {
			micro += int64(frac[i] - '0')
		}
	}
	if len(frac) > 6 {
		rest := frac[6:]
		half := rest[0] > '5' || rest[0] == '5' && (strings.Trim(rest[1:], "0") != "" || micro%2 == 1)
		if half {
			micro++
		}
	}
	total := sec*1_000_000 + micro
	if neg {
		total = -total
	}
	t := time.UnixMicro(total).UTC()
	if t.Before(minTime) || t.After(maxTime) {
		return time.Time{}, false
	}
	return t, true
}
