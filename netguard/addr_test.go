package netguard

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
)

func TestCheckAddr(t *testing.T) {
	tests := []struct {
		name string
		addr string
		want string // substring of the refusal; "" = public
	}{
		{name: "public v4", addr: "93.184.216.34"},
		{name: "public v4 next to private", addr: "172.32.0.1"},
		{name: "public v6", addr: "2606:4700::1111"},
		{name: "unspecified v4", addr: "0.0.0.0", want: "unspecified"},
		{name: "this network", addr: "0.1.2.3", want: "this network"},
		{name: "rfc1918 10", addr: "10.20.30.40", want: "private"},
		{name: "rfc1918 172", addr: "172.31.255.255", want: "private"},
		{name: "rfc1918 192", addr: "192.168.1.1", want: "private"},
		{name: "cgnat", addr: "100.64.0.1", want: "carrier-grade NAT"},
		{name: "cgnat top", addr: "100.127.255.254", want: "carrier-grade NAT"},
		{name: "loopback", addr: "127.0.0.1", want: "loopback"},
		{name: "loopback other", addr: "127.255.0.9", want: "loopback"},
		{name: "metadata v4", addr: "169.254.169.254", want: "metadata"},
		{name: "link-local v4", addr: "169.254.1.1", want: "link-local"},
		{name: "oracle metadata", addr: "192.0.0.192", want: "IETF protocol"},
		{name: "documentation", addr: "203.0.113.7", want: "documentation"},
		{name: "benchmarking", addr: "198.19.0.1", want: "benchmarking"},
		{name: "multicast v4", addr: "239.1.1.1", want: "multicast"},
		{name: "broadcast", addr: "255.255.255.255", want: "broadcast"},
		{name: "reserved", addr: "240.0.0.1", want: "reserved"},
		{name: "unspecified v6", addr: "::", want: "unspecified"},
		{name: "loopback v6", addr: "::1", want: "loopback"},
		{name: "ula", addr: "fd12:3456::1", want: "unique local"},
		{name: "metadata v6", addr: "fd00:ec2::254", want: "metadata"},
		{name: "link-local v6", addr: "fe80::1", want: "link-local"},
		{name: "link-local v6 zone", addr: "fe80::1%eth0", want: "link-local"},
		{name: "site-local v6", addr: "fec0::1", want: "site-local"},
		{name: "multicast v6", addr: "ff02::1", want: "multicast"},
		{name: "documentation v6", addr: "2001:db8::1", want: "documentation"},
		{name: "teredo", addr: "2001:0:4136:e378:8000:63bf:3fff:fdd2", want: "Teredo"},
		{name: "unassigned v6", addr: "4000::1", want: "global unicast"},
		{name: "ipv4-compatible", addr: "::127.0.0.1", want: "IPv4-compatible"},
		{name: "mapped loopback", addr: "::ffff:127.0.0.1", want: "IPv4-mapped form of 127.0.0.1, a loopback"},
		{name: "mapped metadata", addr: "::ffff:169.254.169.254", want: "metadata"},
		{name: "mapped private hex", addr: "::ffff:a00:1", want: "private"},
		{name: "mapped public", addr: "::ffff:93.184.216.34"},
		{name: "translated loopback", addr: "::ffff:0:7f00:1", want: "IPv4-translated"},
		{name: "nat64 loopback", addr: "64:ff9b::127.0.0.1", want: "NAT64 form of 127.0.0.1"},
		{name: "nat64 metadata", addr: "64:ff9b::a9fe:a9fe", want: "metadata"},
		{name: "nat64 public", addr: "64:ff9b::5db8:d822"},
		{name: "nat64 local-use", addr: "64:ff9b:1::a00:1", want: "local-use NAT64"},
		{name: "6to4 private", addr: "2002:c0a8:101::1", want: "6to4 form of 192.168.1.1"},
		{name: "6to4 public", addr: "2002:5db8:d822::1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckAddr(netip.MustParseAddr(tt.addr))
			if tt.want == "" {
				if err != nil {
					t.Fatalf("CheckAddr(%s) = %v, want public", tt.addr, err)
				}
				return
			}
			if !errors.Is(err, ErrAddressRefused) {
				t.Fatalf("CheckAddr(%s) = %v, want ErrAddressRefused", tt.addr, err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("CheckAddr(%s) = %q, want it to say %q", tt.addr, err, tt.want)
			}
		})
	}
	if err := CheckAddr(netip.Addr{}); !errors.Is(err, ErrAddressRefused) {
		t.Errorf("CheckAddr(zero) = %v, want a refusal", err)
	}
}

// FuzzCheckAddr checks that an IPv4 address and its IPv4-mapped and NAT64
// forms are judged alike, for any address.
func FuzzCheckAddr(f *testing.F) {
	for _, s := range []string{"127.0.0.1", "10.0.0.1", "8.8.8.8", "169.254.169.254", "255.255.255.255", "0.0.0.0"} {
		b := netip.MustParseAddr(s).As4()
		f.Add(b[0], b[1], b[2], b[3])
	}
	f.Fuzz(func(t *testing.T, b0, b1, b2, b3 byte) {
		b := []byte{b0, b1, b2, b3}
		v4 := netip.AddrFrom4([4]byte(b))
		mapped := netip.AddrFrom16(v4.As16())
		var n [16]byte
		copy(n[:], netip.MustParseAddr("64:ff9b::").AsSlice())
		copy(n[12:], b)
		nat64 := netip.AddrFrom16(n)
		want := CheckAddr(v4) == nil
		if got := CheckAddr(mapped) == nil; got != want {
			t.Fatalf("%s public=%v but %s public=%v", v4, want, mapped, got)
		}
		if got := CheckAddr(nat64) == nil; got != want {
			t.Fatalf("%s public=%v but %s public=%v", v4, want, nat64, got)
		}
	})
}
