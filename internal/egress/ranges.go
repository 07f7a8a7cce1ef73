package egress

import "net/netip"

// nonPublic lists the address ranges that are never reached unless allowlisted,
// beyond what netip's predicates (loopback, private, link-local, multicast,
// unspecified) already cover. They are the IANA special-purpose blocks that are not
// globally reachable, plus documentation and benchmark ranges that no real API
// lives in: refusing them costs nothing and closes odd corners.
var nonPublic = mustPrefixes(
	"0.0.0.0/8",       // "this network"
	"100.64.0.0/10",   // carrier-grade NAT
	"192.0.0.0/24",    // IETF protocol assignments
	"192.0.2.0/24",    // TEST-NET-1
	"198.18.0.0/15",   // benchmarking
	"198.51.100.0/24", // TEST-NET-2
	"203.0.113.0/24",  // TEST-NET-3
	"240.0.0.0/4",     // reserved, includes 255.255.255.255
	"::/96",           // IPv4-compatible (deprecated)
	"::ffff:0:0:0/96", // SIIT translated
	"64:ff9b:1::/48",  // local-use NAT64
	"100::/64",        // discard-only
	"2001::/23",       // IETF protocol assignments (Teredo, ORCHID, ...)
	"2001:db8::/32",   // documentation
	"fec0::/10",       // site-local (deprecated)
	"3fff::/20",       // documentation (RFC 9637)
	"5f00::/16",       // segment routing SIDs
)

// embedsIPv4 are IPv6 ranges whose addresses carry an IPv4 address that a
// translator may forward to: the embedded address is judged instead.
var (
	nat64   = netip.MustParsePrefix("64:ff9b::/96")
	sixToF4 = netip.MustParsePrefix("2002::/16")
)

func mustPrefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

// Classify says why ip is not a public unicast address, or "" when it is.
func Classify(ip netip.Addr) string {
	ip = ip.Unmap().WithZone("")
	switch {
	case !ip.IsValid():
		return "invalid address"
	case ip.IsUnspecified():
		return "unspecified address"
	case ip.IsLoopback():
		return "loopback address"
	case ip.IsPrivate():
		return "private address"
	case ip.IsLinkLocalUnicast():
		return "link-local address"
	case ip.IsMulticast(), ip.IsLinkLocalMulticast(), ip.IsInterfaceLocalMulticast():
		return "multicast address"
	}
	if ip.Is6() {
		b := ip.As16()
		if nat64.Contains(ip) {
			if why := Classify(netip.AddrFrom4([4]byte(b[12:16]))); why != "" {
				return "NAT64 address of a " + why
			}
		}
		if sixToF4.Contains(ip) {
			if why := Classify(netip.AddrFrom4([4]byte(b[2:6]))); why != "" {
				return "6to4 address of a " + why
			}
		}
	}
	for _, p := range nonPublic {
		if p.Contains(ip) {
			return "non-public address (" + p.String() + ")"
		}
	}
	return ""
}
