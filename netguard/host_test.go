package netguard

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

func TestNormalizeHost(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr bool
	}{
		{name: "lower", in: "Example.COM", want: "example.com"},
		{name: "trailing dot", in: "example.com.", want: "example.com"},
		{name: "idn", in: "bücher.example", want: "xn--bcher-kva.example"},
		{name: "underscore", in: "_dmarc.Example.com", want: "_dmarc.example.com"},
		{name: "v4", in: "127.0.0.1", want: "127.0.0.1"},
		{name: "v6 brackets", in: "[::FFFF:7f00:1]", want: "::ffff:127.0.0.1"},
		{name: "v6 zone", in: "fe80::1%eth0", want: "fe80::1"},
		{name: "empty", in: "", wantErr: true},
		{name: "only dot", in: ".", wantErr: true},
		{name: "port", in: "example.com:80", wantErr: true},
		{name: "path", in: "example.com/x", wantErr: true},
		{name: "user", in: "u@example.com", wantErr: true},
		{name: "space", in: "exa mple.com", wantErr: true},
		{name: "empty label", in: "a..b", wantErr: true},
		{name: "long label", in: strings.Repeat("a", 64) + ".com", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NormalizeHost(tt.in)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("NormalizeHost(%q) = %q, want an error", tt.in, got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("NormalizeHost(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestHostSet(t *testing.T) {
	tests := []struct {
		name     string
		patterns []string
		host     string
		want     bool
	}{
		{name: "exact", patterns: []string{"example.com"}, host: "example.com", want: true},
		{name: "exact is not subdomain", patterns: []string{"example.com"}, host: "www.example.com"},
		{name: "wildcard subdomain", patterns: []string{"*.example.com"}, host: "api.example.com", want: true},
		{name: "wildcard deep", patterns: []string{"*.example.com"}, host: "a.b.example.com", want: true},
		{name: "wildcard not apex", patterns: []string{"*.example.com"}, host: "example.com"},
		{name: "wildcard not suffix trick", patterns: []string{"*.example.com"}, host: "evilexample.com"},
		{name: "case and dot", patterns: []string{"*.Example.COM."}, host: "x.example.com", want: true},
		{name: "star", patterns: []string{"*"}, host: "anything.test", want: true},
		{name: "address", patterns: []string{"[::1]"}, host: "::1", want: true},
		{name: "none", patterns: nil, host: "example.com"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hs, err := compileHosts("test", tt.patterns, true)
			if err != nil {
				t.Fatal(err)
			}
			if got := hs.match(tt.host); got != tt.want {
				t.Errorf("match(%q) = %v, want %v", tt.host, got, tt.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		opts    Options
		wantErr string
	}{
		{name: "zero"},
		{name: "good", opts: Options{AllowedHosts: []string{"a.test", "*.b.test", "*"}, BlockedHosts: []string{"c.test"}, AllowPrivate: []string{"10.0.0.0/8", "127.0.0.1", "::1", "[fd00::1]", "intranet.test", "*.corp.test"}}},
		{name: "allowed with port", opts: Options{AllowedHosts: []string{"a.test:443"}}, wantErr: "a.test:443"},
		{name: "allowed with scheme", opts: Options{AllowedHosts: []string{"https://a.test"}}, wantErr: "https://a.test"},
		{name: "blocked empty", opts: Options{BlockedHosts: []string{""}}, wantErr: "blocked hosts"},
		{name: "wildcard address", opts: Options{AllowedHosts: []string{"*.10.0.0.1"}}, wantErr: "domain name"},
		{name: "middle wildcard", opts: Options{AllowedHosts: []string{"a.*.test"}}, wantErr: "a.*.test"},
		{name: "private star", opts: Options{AllowPrivate: []string{"*"}}, wantErr: "one by one"},
		{name: "private bad cidr", opts: Options{AllowPrivate: []string{"10.0.0.0/33"}}, wantErr: "10.0.0.0/33"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.opts.Validate()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrInvalidRule) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Validate = %v, want ErrInvalidRule naming %q", err, tt.wantErr)
			}
			if _, nerr := New(tt.opts); nerr == nil {
				t.Error("New accepted what Validate refused")
			}
		})
	}
}

func TestCheckURL(t *testing.T) {
	tests := []struct {
		name    string
		opts    Options
		url     string
		wantErr error
	}{
		{name: "public https", url: "https://example.com/x"},
		{name: "public http upper scheme", url: "HTTP://example.com/"},
		{name: "file", url: "file:///etc/passwd", wantErr: ErrScheme},
		{name: "ftp", url: "ftp://example.com/", wantErr: ErrScheme},
		{name: "gopher", url: "gopher://127.0.0.1:6379/_x", wantErr: ErrScheme},
		{name: "no scheme", url: "example.com/x", wantErr: ErrScheme},
		{name: "opaque", url: "http:example.com", wantErr: ErrInvalidURL},
		{name: "no host", url: "http:///x", wantErr: ErrInvalidURL},
		{name: "loopback literal", url: "http://127.0.0.1:8080/", wantErr: ErrAddressRefused},
		{name: "metadata literal", url: "http://169.254.169.254/latest/meta-data/", wantErr: ErrAddressRefused},
		{name: "v6 loopback literal", url: "http://[::1]/", wantErr: ErrAddressRefused},
		{name: "mapped literal", url: "http://[::ffff:127.0.0.1]/", wantErr: ErrAddressRefused},
		{name: "nat64 literal", url: "http://[64:ff9b::a9fe:a9fe]/", wantErr: ErrAddressRefused},
		{name: "localhost", url: "http://localhost:9000/", wantErr: ErrAddressRefused},
		{name: "sub localhost", url: "http://a.LOCALHOST./", wantErr: ErrAddressRefused},
		{name: "metadata name", url: "http://metadata.google.internal/computeMetadata/v1/", wantErr: ErrAddressRefused},
		{name: "allowed private literal", opts: Options{AllowPrivate: []string{"127.0.0.0/8"}}, url: "http://127.0.0.1/"},
		{name: "allowed private mapped", opts: Options{AllowPrivate: []string{"127.0.0.1"}}, url: "http://[::ffff:127.0.0.1]/"},
		{name: "allowed private name", opts: Options{AllowPrivate: []string{"localhost"}}, url: "http://localhost/"},
		{name: "blocked exact", opts: Options{BlockedHosts: []string{"evil.test"}}, url: "https://EVIL.test/", wantErr: ErrHostBlocked},
		{name: "blocked wildcard", opts: Options{BlockedHosts: []string{"*.evil.test"}}, url: "https://a.evil.test/", wantErr: ErrHostBlocked},
		{name: "blocked wins", opts: Options{AllowedHosts: []string{"*.test"}, BlockedHosts: []string{"evil.test"}}, url: "https://evil.test/", wantErr: ErrHostBlocked},
		{name: "not allowed", opts: Options{AllowedHosts: []string{"api.test"}}, url: "https://other.test/", wantErr: ErrHostNotAllowed},
		{name: "allowed", opts: Options{AllowedHosts: []string{"api.test"}}, url: "https://api.test:8443/v1"},
		{name: "allowed wildcard not apex", opts: Options{AllowedHosts: []string{"*.api.test"}}, url: "https://api.test/", wantErr: ErrHostNotAllowed},
		{name: "required and empty", opts: Options{RequireAllowedHosts: true}, url: "https://api.test/", wantErr: ErrNoAllowedHosts},
		{name: "required and star", opts: Options{RequireAllowedHosts: true, AllowedHosts: []string{"*"}}, url: "https://api.test/"},
		{name: "allowed host still private", opts: Options{AllowedHosts: []string{"127.0.0.1"}}, url: "http://127.0.0.1/", wantErr: ErrAddressRefused},
		{name: "bad port", url: "http://example.com:99999/", wantErr: ErrInvalidURL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := New(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			u, err := url.Parse(tt.url)
			if err != nil {
				t.Fatal(err)
			}
			err = g.CheckURL(u)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("CheckURL(%s) = %v", tt.url, err)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("CheckURL(%s) = %v, want %v", tt.url, err, tt.wantErr)
			}
			var re *RefusedError
			if !errors.As(err, &re) {
				t.Fatalf("CheckURL(%s) = %T, want *RefusedError", tt.url, err)
			}
		})
	}
}

// FuzzHostRules checks the matcher's promises for any pattern and host: a
// wildcard matches only proper subdomains, an exact pattern only its own
// normalized host, and nothing panics.
func FuzzHostRules(f *testing.F) {
	for _, s := range [][2]string{
		{"example.com", "example.com"}, {"*.example.com", "a.example.com"}, {"*.example.com", "example.com"},
		{"*", "x"}, {"[::1]", "::1"}, {"Bücher.example", "xn--bcher-kva.example"}, {"*.a", "b.a."}, {"a..b", "a"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, host string) {
		hs, err := compileHosts("fuzz", []string{pattern}, true)
		if err != nil {
			return
		}
		h, err := NormalizeHost(host)
		if err != nil {
			return
		}
		if !hs.match(h) || hs.any {
			return
		}
		p := strings.TrimSpace(pattern)
		if rest, ok := strings.CutPrefix(p, "*."); ok {
			base, err := NormalizeHost(rest)
			if err != nil {
				t.Fatalf("pattern %q compiled but its base does not normalize: %v", p, err)
			}
			if h == base || !strings.HasSuffix(h, "."+base) {
				t.Fatalf("%q matched %q, which is not a proper subdomain of %q", p, h, base)
			}
			return
		}
		want, err := NormalizeHost(p)
		if err != nil || want != h {
			t.Fatalf("%q matched %q, want only %q (%v)", p, h, want, err)
		}
	})
}

// FuzzCheckURL checks that any URL the guard accepts is http or https with
// a host that no blocked rule matches and the allowed rules admit.
func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{
		"https://example.com/", "http://127.0.0.1/", "file:///etc/passwd", "http://[::ffff:127.0.0.1]:80/",
		"http://a.allowed.test/", "http://evil.allowed.test/", "HTTP://ALLOWED.TEST./", "http://xn--bcher-kva.allowed.test",
		"http://%31%32%37.0.0.1/", "http://0x7f.1/", "http://user:pw@allowed.test@evil.test/", "//allowed.test/x",
	} {
		f.Add(s)
	}
	g, err := New(Options{AllowedHosts: []string{"allowed.test", "*.allowed.test", "127.0.0.1"}, BlockedHosts: []string{"evil.allowed.test"}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := url.Parse(raw)
		if err != nil {
			return
		}
		if g.CheckURL(u) != nil {
			return
		}
		if s := strings.ToLower(u.Scheme); s != "http" && s != "https" {
			t.Fatalf("accepted scheme %q in %q", u.Scheme, raw)
		}
		h, err := NormalizeHost(u.Hostname())
		if err != nil {
			t.Fatalf("accepted %q whose host does not normalize: %v", raw, err)
		}
		if h == "evil.allowed.test" || !(h == "allowed.test" || strings.HasSuffix(h, ".allowed.test")) {
			t.Fatalf("accepted host %q of %q", h, raw)
		}
	})
}
