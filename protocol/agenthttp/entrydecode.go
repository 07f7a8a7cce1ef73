package agenthttp

import (
	"time"
)

var entryFields = []string{"name", "url", "protocol", "acp", "auth_config", "timeout", "timeout_ms", "retry_config"}

// DecodeEntry reads a registry entry. Missing timeout and retry_config
// fields take the defaults; timeout is also read as timeout_ms (both may be
// given only when equal); token, key and header values are plain strings or
// {"credentialRef": {"id": ...}}. Unknown fields are errors (a misspelt
// max_retries would silently keep the default otherwise). The entry is
// validated; errors name the field and byte offset and never show a secret.
func DecodeEntry(data []byte, lim Limits) (Entry, error) {
	d := decoder{what: "entry", lim: lim.orDefault(DefaultMaxEntryBytes)}
	members, err := d.top(data)
	if err != nil {
		return Entry{}, err
	}
	e := NewEntry("", "")
	var timeout, timeoutMs *member
	offsets := map[string]int{}
	for i := range members {
		m := members[i]
		offsets[m.key] = m.off
		switch m.key {
		case "name":
			if e.Name, err = d.str(m, "name"); err != nil {
				return Entry{}, err
			}
		case "url":
			if e.URL, err = d.str(m, "url"); err != nil {
				return Entry{}, err
			}
		case "protocol":
			if isNull(m.raw) {
				continue
			}
			p, err := d.str(m, "protocol")
			if err != nil {
				return Entry{}, err
			}
			e.Protocol = Protocol(p)
		case "acp":
			if isNull(m.raw) {
				continue
			}
			if e.ACP, err = d.acp(m); err != nil {
				return Entry{}, err
			}
		case "auth_config":
			if isNull(m.raw) {
				continue
			}
			if e.Auth, err = d.auth(m); err != nil {
				return Entry{}, err
			}
		case "timeout":
			timeout = &members[i]
		case "timeout_ms":
			timeoutMs = &members[i]
		case "retry_config":
			if isNull(m.raw) {
				continue
			}
			if e.Retry, err = d.retry(m); err != nil {
				return Entry{}, err
			}
		default:
			return Entry{}, d.unknown(m, "", entryFields...)
		}
	}
	var ms int64 = -1
	for _, t := range []struct {
		m    *member
		name string
	}{{timeout, "timeout"}, {timeoutMs, "timeout_ms"}} {
		if t.m == nil || isNull(t.m.raw) {
			continue
		}
		v, err := d.integer(*t.m, t.name, 1, MaxTimeout.Milliseconds())
		if err != nil {
			return Entry{}, err
		}
		if ms >= 0 && v != ms {
			return Entry{}, errorf(d.what, t.name, t.m.off, "is %d but timeout is %d; give one of the two", v, ms)
		}
		ms = v
	}
	if ms >= 0 {
		e.Timeout = time.Duration(ms) * time.Millisecond
	}
	if err := e.Validate(); err != nil {
		// Point at the field's value when the check names a top-level field.
		if fe, ok := err.(*Error); ok && fe.Offset == 0 {
			fe.Offset = offsetOf(fe.Path, offsets)
		}
		return Entry{}, err
	}
	return e, nil
}

// offsetOf finds the offset of the top-level field a path starts with.
func offsetOf(path string, offsets map[string]int) int {
	for key, off := range offsets {
		if path == key || len(path) > len(key) && path[:len(key)] == key && (path[len(key)] == '.' || path[len(key)] == '[') {
			return off
		}
	}
	return 0
}

var authFields = []string{"type", "token", "key", "header", "headers"}

func (d decoder) auth(m member) (*AuthConfig, error) {
	const p = "auth_config"
	members, err := d.object(m.raw, p, m.off)
	if err != nil {
		return nil, err
	}
	a := &AuthConfig{}
	haveType := false
	for _, f := range members {
		path := join(p, f.key)
		switch f.key {
		case "type":
			s, err := d.str(f, path)
			if err != nil {
				return nil, err
			}
			switch AuthType(s) {
			case AuthBearer, AuthAPIKey, AuthHeaders:
				a.Type, haveType = AuthType(s), true
			default:
				return nil, errorf(d.what, path, f.off, "is %s; want bearer, apikey or headers", quoteShort(s))
			}
		case "token":
			if a.Token, err = d.secret(f, path); err != nil {
				return nil, err
			}
		case "key":
			if a.Key, err = d.secret(f, path); err != nil {
				return nil, err
			}
		case "header":
			if a.Header, err = d.str(f, path); err != nil {
				return nil, err
			}
			if _, err := checkHeaderName(d.what, path, a.Header); err != nil {
				err.(*Error).Offset = f.off
				return nil, err
			}
		case "headers":
			hs, err := d.object(f.raw, path, f.off)
			if err != nil {
				return nil, err
			}
			a.Headers = make(map[string]Secret, len(hs))
			for _, h := range hs {
				hp := join(path, h.key)
				if _, err := checkHeaderName(d.what, hp, h.key); err != nil {
					err.(*Error).Offset = h.off
					return nil, err
				}
				if a.Headers[h.key], err = d.secret(h, hp); err != nil {
					return nil, err
				}
			}
		default:
			return nil, d.unknown(f, p, authFields...)
		}
	}
	if !haveType {
		return nil, errorf(d.what, p+".type", m.off, "is missing; want bearer, apikey or headers")
	}
	if err := a.validate(d.what); err != nil {
		if fe, ok := err.(*Error); ok && fe.Offset == 0 {
			fe.Offset = m.off
		}
		return nil, err
	}
	return a, nil
}

var retryFields = []string{"max_retries", "initial_delay_ms", "max_delay_ms", "backoff_multiplier"}

func (d decoder) retry(m member) (RetryConfig, error) {
	const p = "retry_config"
	members, err := d.object(m.raw, p, m.off)
	if err != nil {
		return RetryConfig{}, err
	}
	c := DefaultRetryConfig()
	for _, f := range members {
		path := join(p, f.key)
		if isNull(f.raw) {
			continue // null keeps the default
		}
		switch f.key {
		case "max_retries":
			n, err := d.integer(f, path, 0, MaxRetriesLimit)
			if err != nil {
				return c, err
			}
			c.MaxRetries = int(n)
		case "initial_delay_ms":
			n, err := d.integer(f, path, 0, MaxDelayLimit.Milliseconds())
			if err != nil {
				return c, err
			}
			c.InitialDelay = time.Duration(n) * time.Millisecond
		case "max_delay_ms":
			n, err := d.integer(f, path, 0, MaxDelayLimit.Milliseconds())
			if err != nil {
				return c, err
			}
			c.MaxDelay = time.Duration(n) * time.Millisecond
		case "backoff_multiplier":
			x, err := d.number(f, path)
			if err != nil {
				return c, err
			}
			if x < 1 || x > MaxMultiplier {
				return c, errorf(d.what, path, f.off, "is %g; want 1 to %g", x, MaxMultiplier)
			}
			c.BackoffMultiplier = x
		default:
			return c, d.unknown(f, p, retryFields...)
		}
	}
	if err := c.validate(d.what); err != nil {
		if fe, ok := err.(*Error); ok && fe.Offset == 0 {
			fe.Offset = m.off
		}
		return c, err
	}
	return c, nil
}
