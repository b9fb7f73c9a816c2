package netguard

import (
	"fmt"
	"net/netip"
	"strings"

	"golang.org/x/net/idna"
)

// hostSet is a compiled list of host patterns: exact hosts, "*.example.com"
// (every subdomain of example.com, not example.com itself) and, where the
// list allows it, "*" (every host).
type hostSet struct {
	any      bool
	exact    map[string]bool
	suffixes []string // each with its leading dot: ".example.com"
}

// compileHosts compiles patterns. wildcardOK says whether "*" alone may
// appear; field names the setting in errors.
func compileHosts(field string, patterns []string, wildcardOK bool) (hostSet, error) {
	hs := hostSet{exact: map[string]bool{}}
	for _, p := range patterns {
		raw := strings.TrimSpace(p)
		if raw == "*" {
			if !wildcardOK {
				return hostSet{}, fmt.Errorf("%w: %s: \"*\" is not accepted here; list the hosts or CIDRs one by one", ErrInvalidRule, field)
			}
			hs.any = true
			continue
		}
		sub := strings.HasPrefix(raw, "*.")
		name := raw
		if sub {
			name = raw[2:]
		}
		h, err := NormalizeHost(name)
		if err != nil {
			return hostSet{}, fmt.Errorf("%w: %s: %q: %v", ErrInvalidRule, field, p, err)
		}
		if sub {
			if _, ipErr := netip.ParseAddr(h); ipErr == nil {
				return hostSet{}, fmt.Errorf("%w: %s: %q: a wildcard needs a domain name, not an address", ErrInvalidRule, field, p)
			}
			hs.suffixes = append(hs.suffixes, "."+h)
			continue
		}
		hs.exact[h] = true
	}
	return hs, nil
}

// empty reports whether the set matches nothing.
func (hs hostSet) empty() bool { return !hs.any && len(hs.exact) == 0 && len(hs.suffixes) == 0 }

// match reports whether the normalized host h is in the set.
func (hs hostSet) match(h string) bool {
	if hs.any || hs.exact[h] {
		return true
	}
	for _, s := range hs.suffixes {
		if len(h) > len(s) && strings.HasSuffix(h, s) {
			return true
		}
	}
	return false
}

// NormalizeHost returns the form of a host name that host rules compare:
// lower case, ASCII (internationalized names in their xn-- form), without a
// trailing dot, and for addresses the canonical text without brackets or
// zone ("[::FFFF:7f00:1]" becomes "::ffff:127.0.0.1"). It fails for an
// empty host, one with a port, a path, a user or spaces, and for names that
// are not valid host names.
func NormalizeHost(host string) (string, error) {
	h := strings.TrimSpace(host)
	if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		h = h[1 : len(h)-1]
	}
	if h == "" {
		return "", fmt.Errorf("empty host")
	}
	if a, err := netip.ParseAddr(h); err == nil {
		return a.WithZone("").String(), nil
	}
	h = strings.TrimSuffix(h, ".")
	if h == "" || strings.ContainsAny(h, "/\\@:?#[]% \t\r\n*") {
		return "", fmt.Errorf("%q is not a host name: give a name such as example.com, without scheme, port or path", host)
	}
	ascii, err := idna.Lookup.ToASCII(h)
	if err != nil {
		// Lookup refuses some names that resolvers accept (labels with
		// underscores); take those as they are when they are plain ASCII.
		if !isPlainASCII(h) {
			return "", fmt.Errorf("%q is not a valid host name", host)
		}
		ascii = strings.ToLower(h)
	}
	if ascii == "" || len(ascii) > 253 {
		return "", fmt.Errorf("%q is not a valid host name", host)
	}
	for _, label := range strings.Split(ascii, ".") {
		if label == "" || len(label) > 63 {
			return "", fmt.Errorf("%q is not a valid host name: empty or over-long label", host)
		}
	}
	return ascii, nil
}

func isPlainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f {
			return false
		}
	}
	return true
}

// metadataHosts are names that reach a cloud provider's instance metadata
// service; they are refused before any lookup, like localhost.
var metadataHosts = map[string]bool{
	"metadata":                   true,
	"metadata.google.internal":   true,
	"metadata.goog":              true,
	"instance-data":              true,
	"instance-data.ec2.internal": true,
}

// nameClass returns why a normalized host name is refused before lookup,
// or "" when it may be resolved.
func nameClass(h string) string {
	switch {
	case h == "localhost" || strings.HasSuffix(h, ".localhost"):
		return "a loopback name"
	case metadataHosts[h]:
		return "a cloud metadata name"
	}
	return ""
}
