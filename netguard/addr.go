package netguard

import (
	"fmt"
	"net/netip"
)

// rangeRule is one special-purpose address range and the words that say
// what it is.
type rangeRule struct {
	prefix netip.Prefix
	what   string
}

func rules(pairs ...string) []rangeRule {
	out := make([]rangeRule, 0, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, rangeRule{prefix: netip.MustParsePrefix(pairs[i]), what: pairs[i+1]})
	}
	return out
}

// v4Rules are the IPv4 ranges that are not globally reachable unicast. The
// first match names the address, so narrower ranges come first.
var v4Rules = rules(
	"0.0.0.0/32", "an unspecified address",
	"0.0.0.0/8", "a \"this network\" address (0.0.0.0/8)",
	"10.0.0.0/8", "a private address (RFC 1918)",
	"100.64.0.0/10", "a carrier-grade NAT address (100.64.0.0/10)",
	"127.0.0.0/8", "a loopback address",
	"169.254.169.254/32", "the cloud metadata address",
	"169.254.0.0/16", "a link-local address",
	"172.16.0.0/12", "a private address (RFC 1918)",
	"192.0.0.0/24", "an IETF protocol address (192.0.0.0/24)",
	"192.0.2.0/24", "a documentation address (192.0.2.0/24)",
	"192.88.99.0/24", "a 6to4 relay address (192.88.99.0/24)",
	"192.168.0.0/16", "a private address (RFC 1918)",
	"198.18.0.0/15", "a benchmarking address (198.18.0.0/15)",
	"198.51.100.0/24", "a documentation address (198.51.100.0/24)",
	"203.0.113.0/24", "a documentation address (203.0.113.0/24)",
	"224.0.0.0/4", "a multicast address",
	"255.255.255.255/32", "the broadcast address",
	"240.0.0.0/4", "a reserved address (240.0.0.0/4)",
)

// v6Rules are the IPv6 ranges refused outright. Ranges that embed an IPv4
// address (IPv4-mapped, IPv4-translated, NAT64, 6to4) are handled first by
// [checkAddr]; anything outside 2000::/3 that no rule names is refused as
// not global unicast.
var v6Rules = rules(
	"::/128", "an unspecified address",
	"::1/128", "a loopback address",
	"::/96", "an IPv4-compatible address (deprecated, ::/96)",
	"64:ff9b:1::/48", "a local-use NAT64 address (64:ff9b:1::/48)",
	"100::/64", "a discard-only address (100::/64)",
	"2001::/32", "a Teredo tunnel address (2001::/32)",
	"2001:2::/48", "a benchmarking address (2001:2::/48)",
	"2001:10::/28", "an ORCHID address (2001:10::/28)",
	"2001:20::/28", "an ORCHID address (2001:20::/28)",
	"2001:db8::/32", "a documentation address (2001:db8::/32)",
	"3fff::/20", "a documentation address (3fff::/20)",
	"fd00:ec2::254/128", "the cloud metadata address",
	"fc00::/7", "a unique local address (fc00::/7)",
	"fe80::/10", "a link-local address",
	"fec0::/10", "a site-local address (deprecated, fec0::/10)",
	"ff00::/8", "a multicast address",
)

// Prefixes that carry an IPv4 address inside an IPv6 one.
var (
	prefixMapped     = netip.MustParsePrefix("::ffff:0:0/96")
	prefixTranslated = netip.MustParsePrefix("::ffff:0:0:0/96")
	prefixNAT64      = netip.MustParsePrefix("64:ff9b::/96")
	prefix6to4       = netip.MustParsePrefix("2002::/16")
	prefixGlobal6    = netip.MustParsePrefix("2000::/3")
)

// CheckAddr reports whether a is a globally reachable unicast address. It
// returns nil for one, and otherwise an error wrapping [ErrAddressRefused]
// that says what kind of address a is. IPv4 addresses embedded in IPv6 ones
// (IPv4-mapped ::ffff:0:0/96, IPv4-translated ::ffff:0:0:0/96, NAT64
// 64:ff9b::/96 and 6to4 2002::/16) are judged by the IPv4 address they
// carry. A zone (fe80::1%eth0) is ignored.
func CheckAddr(a netip.Addr) error {
	if what := addrClass(a); what != "" {
		return &RefusedError{Err: ErrAddressRefused, Addr: a.WithZone(""), Reason: fmt.Sprintf("%s is %s", a.WithZone(""), what)}
	}
	return nil
}

// addrClass returns what makes a special, or "" for a global unicast
// address.
func addrClass(a netip.Addr) string {
	if !a.IsValid() {
		return "not a valid address"
	}
	a = a.WithZone("")
	if a.Is4() {
		return match(v4Rules, a)
	}
	if embedded, how, ok := embeddedV4(a); ok {
		if what := match(v4Rules, embedded); what != "" {
			return fmt.Sprintf("%s form of %s, %s", how, embedded, what)
		}
		return ""
	}
	if what := match(v6Rules, a); what != "" {
		return what
	}
	if !prefixGlobal6.Contains(a) {
		return "not a global unicast address (outside 2000::/3)"
	}
	return ""
}

// embeddedV4 extracts the IPv4 address an IPv6 address carries, if its
// prefix is one of those that route to the IPv4 address.
func embeddedV4(a netip.Addr) (netip.Addr, string, bool) {
	b := a.As16()
	switch {
	case prefixMapped.Contains(a):
		return a.Unmap(), "an IPv4-mapped", true
	case prefixTranslated.Contains(a):
		return netip.AddrFrom4([4]byte(b[12:16])), "an IPv4-translated", true
	case prefixNAT64.Contains(a):
		return netip.AddrFrom4([4]byte(b[12:16])), "a NAT64", true
	case prefix6to4.Contains(a):
		return netip.AddrFrom4([4]byte(b[2:6])), "a 6to4", true
	}
	return netip.Addr{}, "", false
}

func match(rs []rangeRule, a netip.Addr) string {
	for _, r := range rs {
		if r.prefix.Contains(a) {
			return r.what
		}
	}
	return ""
}
