// Package egress is the server's rule for outgoing connections: loopback, private,
// link-local and other non-public addresses are refused unless allowlisted. The
// rule is enforced when the socket is about to connect, on the address DNS gave,
// so a name that resolves to a public address at check time and to 127.0.0.1 at
// connect time (DNS rebinding) cannot slip through. A second, per-request gate
// (HostCheck, usually the account's host grant) is carried in the request's
// context and re-applied to every redirect.
package egress

import (
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// Policy is the server's egress configuration (config egress.allow_private).
type Policy struct {
	// AllowPrivate lists what may be reached although it is not public: CIDRs
	// ("10.0.0.0/8"), single addresses ("127.0.0.1", "::1"), "host:port" entries
	// ("127.0.0.1:9000", "[::1]:8080", "localhost:9000") and bare host names
	// ("db.internal", any port). Names match the host the request named, not what
	// it resolved to: listing a name is trusting its DNS.
	AllowPrivate []string
}

// rule is a Policy in the form the dialer checks.
type rule struct {
	prefixes []netip.Prefix
	addrs    map[netip.AddrPort]bool
	names    map[string]string // name -> port ("" any port)
}

// Validate reports the first entry of p that is not a CIDR, an address, a
// host:port or a host name. NewTransport ignores such entries (they allow
// nothing), so configuration loaders should call Validate to tell the operator.
func (p Policy) Validate() error {
	_, err := compile(p)
	return err
}

func compile(p Policy) (*rule, error) {
	r := &rule{addrs: map[netip.AddrPort]bool{}, names: map[string]string{}}
	var firstErr error
	for _, e := range p.AllowPrivate {
		if err := r.add(strings.TrimSpace(e)); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	return r, firstErr
}

func (r *rule) add(e string) error {
	if e == "" {
		return fmt.Errorf("egress.allow_private: empty entry")
	}
	if strings.Contains(e, "/") {
		pfx, err := netip.ParsePrefix(e)
		if err != nil {
			return fmt.Errorf("egress.allow_private: %q is not a CIDR: %v", e, err)
		}
		r.prefixes = append(r.prefixes, pfx.Masked())
		return nil
	}
	if ip, err := netip.ParseAddr(strings.Trim(e, "[]")); err == nil {
		r.prefixes = append(r.prefixes, netip.PrefixFrom(ip.Unmap(), ip.Unmap().BitLen()))
		return nil
	}
	host, port := e, ""
	if h, p, err := net.SplitHostPort(e); err == nil {
		host, port = h, p
		if n, err := parsePort(p); err != nil || n == 0 {
			return fmt.Errorf("egress.allow_private: %q has an invalid port", e)
		}
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if port == "" {
			return fmt.Errorf("egress.allow_private: %q is not valid", e)
		}
		n, _ := parsePort(port)
		r.addrs[netip.AddrPortFrom(ip.Unmap(), n)] = true
		return nil
	}
	if !validName(host) {
		return fmt.Errorf("egress.allow_private: %q is not a CIDR, an address, a host name or host:port", e)
	}
	name := normalizeName(host)
	if old, ok := r.names[name]; ok && old == "" {
		return nil // already allowed on every port
	}
	r.names[name] = port
	return nil
}

// allows reports whether a connection to ip:port, made for the name host (the
// URL's host, which may itself be an address), is allowlisted.
func (r *rule) allows(host string, ip netip.Addr, port uint16) bool {
	ip = ip.Unmap().WithZone("")
	for _, p := range r.prefixes {
		if p.Contains(ip) {
			return true
		}
	}
	if r.addrs[netip.AddrPortFrom(ip, port)] {
		return true
	}
	if p, ok := r.names[normalizeName(host)]; ok {
		return p == "" || p == fmt.Sprint(port)
	}
	return false
}

func parsePort(s string) (uint16, error) {
	var n uint32
	if s == "" || len(s) > 5 {
		return 0, fmt.Errorf("bad port")
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("bad port")
		}
		n = n*10 + uint32(c-'0')
	}
	if n > 65535 {
		return 0, fmt.Errorf("bad port")
	}
	return uint16(n), nil
}

func normalizeName(h string) string {
	return strings.TrimSuffix(strings.ToLower(strings.Trim(h, "[]")), ".")
}

// validName accepts DNS names: labels of letters, digits, '-' and '_'.
func validName(h string) bool {
	h = strings.TrimSuffix(h, ".")
	if h == "" || len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}

// Allows reports whether the URL host host (a name or a literal address) on port
// is allowlisted as written, before any DNS lookup: a literal address matches
// CIDRs and address entries, a name matches name entries. Validation uses it to
// stay quiet about private hosts the operator allowed; the dialer still decides
// on the resolved address.
func (p Policy) Allows(host, port string) bool {
	r, _ := compile(p)
	pn, err := parsePort(port)
	if err != nil {
		return false
	}
	ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
	if err != nil {
		_, ok := r.names[normalizeName(host)]
		return ok && r.allows(host, netip.Addr{}, pn)
	}
	return r.allows(host, ip, pn)
}

// RefusesLiteral reports whether the URL host host on port is refused as
// written, before any DNS lookup: a literal address that is not public
// unicast (Classify), or localhost or a name under .localhost, that p does
// not allowlist. A check at registration time tells the caller at once; a
// name that resolves to such an address is refused by the transport when it
// dials.
func (p Policy) RefusesLiteral(host, port string) bool {
	private := false
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		private = Classify(ip) != ""
	} else {
		h := normalizeName(host)
		private = h == "localhost" || strings.HasSuffix(h, ".localhost")
	}
	return private && !p.Allows(host, port)
}
