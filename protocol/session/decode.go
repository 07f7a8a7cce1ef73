package session

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// Decode reads one line (without its newline) as a message:
//
//   - a line that is not UTF-8 or not JSON: *Error parse_error;
//   - JSON that is not a message (not an object; a2e/version, type, id or ts
//     missing or malformed; a duplicate key; nested deeper than lim.MaxDepth;
//     longer than lim.MaxLineBytes): invalid_message;
//   - another major version: version_mismatch;
//   - a registered type: its struct (e.g. *ToolCallReq), its fields checked:
//     a wrong type, a missing required field or a bad value is a
//     schema_violation naming the field. A field the type does not define is
//     skipped, at any depth, as the SDK's pydantic models skip it (their
//     default extra-field handling): DecodeNoting reports each one;
//   - any other type: *Generic, with nil error; the server answers
//     unknown_type if nothing handles it.
//
// Every error is an *Error that carries the message's id and type when they
// could be read, so its Reply can answer with req_id. The message never
// aliases line. JSON null reads as an absent field.
func (r *Registry) Decode(line []byte, lim Limits) (Message, error) {
	return r.DecodeNoting(line, lim, nil)
}

// IgnoredField is a field a message of a registered type carried that the
// type does not define: Decode skips it. Path is where it was ("filter_kind",
// "data.exit_code"); Suggestions name a defined field it may be a typo of.
type IgnoredField struct {
	Type        string // the message's type
	Path        string
	Suggestions []string
}

// DecodeNoting is Decode that calls ignored (when not nil) for each field it
// skipped, so that a server can log them (a typo of a field's name is
// skipped too, not refused).
func (r *Registry) DecodeNoting(line []byte, lim Limits, ignored func(IgnoredField)) (Message, error) {
	lim = lim.withDefaults()
	if len(line) > lim.MaxLineBytes {
		return nil, errorf(CodeInvalidMessage, "", "the message is %d bytes, over the %d-byte line limit", len(line), lim.MaxLineBytes)
	}
	if e := checkSyntax(line); e != nil {
		return nil, e
	}
	s := scanner{data: line, maxDepth: lim.MaxDepth}
	start := s.ws(0)
	if line[start] != '{' {
		e := errorf(CodeInvalidMessage, "", "a message is a JSON object, not %s", s.kindAt(start))
		e.Offset = start
		return nil, e
	}
	var buf [16]member
	ms := s.members(start, 1, buf[:0])
	h, err := s.header(ms)
	if err != nil {
		return nil, err
	}
	if e := s.deep; e != nil {
		e.ID, e.Type = h.ID, h.Type
		return nil, e
	}
	m, err := r.decodeBody(&s, h, ms, ignored)
	if err != nil {
		if e, ok := err.(*Error); ok {
			e.ID, e.Type = h.ID, h.Type
		}
		return nil, err
	}
	*m.Head() = h
	return m, nil
}

func (r *Registry) decodeBody(s *scanner, h Header, ms []member, ignored func(IgnoredField)) (Message, error) {
	ti, ok := r.state.Load().types[h.Type]
	if !ok {
		g := &Generic{Fields: make(map[string]json.RawMessage, len(ms))}
		for i := range ms {
			m := &ms[i]
			k := s.keyString(m)
			if isBaseKey(k) {
				continue
			}
			if _, dup := g.Fields[k]; dup {
				return nil, duplicate(k, m.keyOff)
			}
			g.Fields[k] = bytes.Clone(s.data[m.start:m.end])
		}
		return g, nil
	}
	v := reflect.New(ti.typ)
	d := structDecoder{scanner: s, ignored: ignored, typ: h.Type}
	if err := d.fill(v.Elem(), ti.plan, ms, 1, true); err != nil {
		return nil, err
	}
	return v.Interface().(Message), nil
}

// header reads the base fields. The type and id are read first, loosely, so
// that every later error can name them.
func (s *scanner) header(ms []member) (h Header, err error) {
	var spans [5]*member // a2e, version, type, id, ts
	var dup *Error
	for i := range ms {
		m := &ms[i]
		k := -1
		key := m.key
		if m.esc {
			key = []byte(s.keyString(m))
		}
		switch string(key) { // compared, not kept: no copy

		case "a2e":
			k = 0
		case "version":
			k = 1
		case "type":
			k = 2
		case "id":
			k = 3
		case "ts":
			k = 4
		}
		if k < 0 {
			continue
		}
		if spans[k] != nil {
			if dup == nil {
				dup = duplicate(s.keyString(m), m.keyOff)
			}
			continue
		}
		spans[k] = m
	}
	str := func(m *member) (string, bool) {
		if m == nil || s.data[m.start] != '"' {
			return "", false
		}
		if string(s.data[m.start:m.end]) == `"`+Version+`"` {
			return Version, true // the one string every message shares, not a copy
		}
		return s.str(m.start, m.end), true
	}
	fail := func(m *member, key string, format string, args ...any) (Header, error) {
		e := errorf(CodeInvalidMessage, key, format, args...)
		if m != nil {
			e.Offset = m.start
		}
		e.ID, e.Type = h.ID, h.Type
		return Header{}, e
	}
	typ, typOK := str(spans[2])
	if typOK && validType(typ) {
		h.Type = typ
	}
	id, idOK := str(spans[3])
	if idOK && ValidID(id) {
		h.ID = id
	}
	if dup != nil {
		dup.ID, dup.Type = h.ID, h.Type
		return Header{}, dup
	}

	// Version: a2e, or its alias version; both must agree.
	vm, key := spans[0], "a2e"
	if vm == nil {
		vm, key = spans[1], "version"
	}
	if vm == nil {
		return fail(nil, "a2e", "is required (the protocol version, %q)", Version)
	}
	ver, ok := str(vm)
	if !ok {
		return fail(vm, key, "must be a string such as %q, not %s", Version, s.kindAt(vm.start))
	}
	if spans[0] != nil && spans[1] != nil {
		if alt, _ := str(spans[1]); alt != ver {
			return fail(spans[1], "version", "differs from a2e")
		}
	}
	major, _, ok := parseVersion(ver)
	if !ok {
		return fail(vm, key, "must be a version such as %q", Version)
	}
	if major != 1 {
		e := errorf(CodeVersionMismatch, key, "version %d is not supported; this server speaks %s", major, Version)
		e.Offset, e.ID, e.Type = vm.start, h.ID, h.Type
		return Header{}, e
	}
	h.A2E = ver

	// type, id, ts.
	switch {
	case spans[2] == nil:
		return fail(nil, "type", "is required")
	case !typOK:
		return fail(spans[2], "type", "must be a string, not %s", s.kindAt(spans[2].start))
	case !validType(typ):
		return fail(spans[2], "type", "must be segments of letters, digits, '_', '-' or '.' joined by '/', at most 128 bytes")
	}
	switch {
	case spans[3] == nil:
		return fail(nil, "id", "is required")
	case !idOK:
		return fail(spans[3], "id", "must be a string, not %s", s.kindAt(spans[3].start))
	case !ValidID(id):
		return fail(spans[3], "id", "must be 32 hex characters (a UUID's hex form)")
	}
	tm := spans[4]
	switch {
	case tm == nil:
		return fail(nil, "ts", "is required (Unix time in seconds)")
	case s.kindAt(tm.start) != "a number":
		return fail(tm, "ts", "must be a number (Unix time in seconds), not %s", s.kindAt(tm.start))
	}
	ts, err := strconv.ParseFloat(string(s.data[tm.start:tm.end]), 64)
	if err != nil || ts < 0 || math.IsInf(ts, 0) {
		return fail(tm, "ts", "must be a finite, non-negative number of seconds")
	}
	h.TS = ts
	return h, nil
}

// parseVersion reads "1", "1.0" or "1.0.0".
func parseVersion(v string) (major, minor int, ok bool) {
	if v == Version {
		return 1, 0, true
	}
	parts := strings.Split(v, ".")
	if len(parts) > 3 {
		return 0, 0, false
	}
	nums := make([]int, 0, 2)
	for _, p := range parts {
		if p == "" || len(p) > 6 || strings.TrimLeft(p, "0123456789") != "" {
			return 0, 0, false
		}
		n, _ := strconv.Atoi(p)
		nums = append(nums, n)
	}
	if len(nums) > 1 {
		minor = nums[1]
	}
	return nums[0], minor, true
}

func duplicate(key string, off int) *Error {
	e := errorf(CodeInvalidMessage, "", "duplicate key")
	_ = under(e, key)
	e.Offset = off
	return e
}

// structDecoder fills structs by their plans.
type structDecoder struct {
	*scanner
	ignored func(IgnoredField) // nil: skipped fields are not reported
	typ     string             // the message's type, for ignored
	at      string             // the path of the object being filled, kept only for ignored
}

// fill decodes the members ms of an object at nesting level depth into v, a
// struct of plan p. top: the message itself, whose base keys are read apart.
func (d *structDecoder) fill(v reflect.Value, p *plan, ms []member, depth int, top bool) error {
	var seen, present uint64
	for i := range ms {
		m := &ms[i]
		fi := -1
		if !m.esc {
			fi = p.lookup(m.key)
		}
		var name string
		if fi < 0 {
			name = d.keyString(m)
			if top && isBaseKey(name) {
				continue
			}
			if fi = p.lookup([]byte(name)); fi < 0 {
				if d.ignored != nil {
					d.ignored(IgnoredField{Type: d.typ, Path: joinPath(d.at, name), Suggestions: didYouMean(name, p.names)})
				}
				continue
			}
		}
		f := &p.fields[fi]
		if seen&(1<<fi) != 0 {
			return duplicate(f.name, m.keyOff)
		}
		seen |= 1 << fi
		if d.data[m.start] == 'n' {
			continue // null: as if absent
		}
		if err := d.field(v.FieldByIndex(f.index), f, m.start, m.end, depth+1); err != nil {
			if e, ok := err.(*Error); ok && e.Offset == 0 {
				e.Offset = m.start
			}
			return under(err, f.name)
		}
		present |= 1 << fi
	}
	for i := range p.fields {
		if f := &p.fields[i]; f.required && present&(1<<i) == 0 {
			return errorf(CodeSchemaViolation, f.name, "is required")
		}
	}
	if p.validate {
		if err := v.Addr().Interface().(validator).Validate(); err != nil {
			if _, ok := err.(*Error); !ok {
				err = errorf(CodeSchemaViolation, "", "%s", err.Error())
			}
			return err
		}
	}
	return nil
}

// field decodes the value data[start:end] at level depth into fv.
func (d *structDecoder) field(fv reflect.Value, f *planField, start, end, depth int) error {
	c := d.data[start]
	want := func(what string) error {
		e := errorf(CodeSchemaViolation, "", "must be %s, not %s", what, d.kindAt(start))
		e.Offset = start
		return e
	}
	switch f.kind {
	case kString:
		if c != '"' {
			return want("a string")
		}
		s := d.str(start, end)
		switch {
		case f.id && s != "" && !ValidID(s):
			return errorf(CodeSchemaViolation, "", "must be a message id: 32 hex characters")
		case f.toolname && s != "" && !ValidToolName(s):
			return errorf(CodeSchemaViolation, "", "must be a tool name: 1 to %d bytes, printable, no spaces", MaxToolNameBytes)
		case f.required && s == "":
			return errorf(CodeSchemaViolation, "", "must not be empty")
		}
		fv.SetString(s)
	case kBool:
		if c != 't' && c != 'f' {
			return want("a boolean")
		}
		fv.SetBool(c == 't')
	case kInt:
		if d.kindAt(start) != "a number" {
			return want("an integer")
		}
		n, ok := parseInt(d.data[start:end])
		if !ok {
			return errorf(CodeSchemaViolation, "", "must be an integer of at most 2^53")
		}
		if f.nonneg && n < 0 {
			return errorf(CodeSchemaViolation, "", "must not be negative")
		}
		fv.SetInt(n)
	case kFloat:
		if d.kindAt(start) != "a number" {
			return want("a number")
		}
		x, err := strconv.ParseFloat(string(d.data[start:end]), 64)
		if err != nil || math.IsInf(x, 0) {
			return errorf(CodeSchemaViolation, "", "must be a finite number")
		}
		if f.nonneg && x < 0 {
			return errorf(CodeSchemaViolation, "", "must not be negative")
		}
		fv.SetFloat(x)
	case kStrings:
		if c != '[' {
			return want("an array of strings")
		}
		out := []string{} // [] stays [], apart from absent
		err := d.elements(start, depth, func(_, s, e int) error {
			if d.data[s] != '"' {
				return errorf(CodeSchemaViolation, "", "must be a string, not %s", d.kindAt(s))
			}
			out = append(out, d.str(s, e))
			return nil
		})
		if err != nil {
			return err
		}
		fv.Set(reflect.ValueOf(out).Convert(fv.Type()))
	case kRaw:
		if f.obj && c != '{' {
			return want("an object")
		}
		fv.SetBytes(bytes.Clone(d.data[start:end]))
	case kStruct:
		if c != '{' {
			return want("an object")
		}
		var buf [16]member
		ms := d.members(start, depth, buf[:0])
		defer d.enter(f.name, -1)()
		return d.fill(fv, f.sub, ms, depth, false)
	case kStructs:
		if c != '[' {
			return want("an array of objects")
		}
		zero := reflect.Zero(f.sub.typ)
		fv.Set(reflect.MakeSlice(fv.Type(), 0, 0)) // [] stays [], apart from absent
		return d.elements(start, depth, func(n, s, e int) error {
			if d.data[s] != '{' {
				return errorf(CodeSchemaViolation, "", "must be an object, not %s", d.kindAt(s))
			}
			fv.Set(reflect.Append(fv, zero))
			var buf [16]member
			ms := d.members(s, depth+1, buf[:0])
			defer d.enter(f.name, n)()
			return d.fill(fv.Index(n), f.sub, ms, depth+1, false)
		})
	}
	return nil
}

// enter makes field name (element i of it when i >= 0) the path of the
// object filled until the returned func runs; it costs nothing when no one
// asked for the skipped fields.
func (d *structDecoder) enter(name string, i int) func() {
	if d.ignored == nil {
		return noop
	}
	if i >= 0 {
		name += "[" + strconv.Itoa(i) + "]"
	}
	outer := d.at
	d.at = joinPath(outer, name)
	return func() { d.at = outer }
}

func noop() {}

func joinPath(at, key string) string {
	if at == "" {
		return key
	}
	return at + "." + key
}

// parseInt reads a JSON number that is an integer (1, -3, 2.0, 1e3, 150e-1)
// within ±2^53, where float64 and int64 agree. It works on the decimal digits,
// never through a float, so that 9007199254740993 or 4503599627370495.9 are
// refused rather than rounded to a neighbour. b is a valid JSON number.
func parseInt(b []byte) (int64, bool) {
	if len(b) <= 15 { // the common case: plain digits that fit
		if n, err := strconv.ParseInt(string(b), 10, 64); err == nil {
			return n, true
		}
	}
	s := string(b)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, expPart, hasExp := strings.Cut(strings.ToLower(s), "e")
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	if strings.Trim(digits, "0") == "" {
		return 0, true // any zero, whatever its exponent
	}
	exp := 0
	if hasExp {
		e, err := strconv.Atoi(expPart)
		if err != nil || e > 1<<30 || e < -(1<<30) {
			return 0, false
		}
		exp = e
	}
	// The value is 0.digits × 10^point once leading zeros are gone; an
	// integer of at most 2^53 (16 digits) has 1 <= point <= 16.
	lead := len(digits) - len(strings.TrimLeft(digits, "0"))
	digits = digits[lead:]
	point := len(intPart) - lead + exp
	if point < 1 || point > 16 {
		return 0, false
	}
	if point < len(digits) {
		if strings.Trim(digits[point:], "0") != "" {
			return 0, false // non-zero digits after the point
		}
		digits = digits[:point]
	} else {
		digits += strings.Repeat("0", point-len(digits))
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n > 1<<53 {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}
