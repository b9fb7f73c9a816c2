package netguard

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/rs/zerolog"
)

// Defaults applied where [Options] leaves a field zero.
const (
	DefaultMaxRedirects = 5
	DefaultTimeout      = 30 * time.Second
	DefaultMaxBytes     = 2 << 20
	// dialTimeout bounds one TCP connect; TLS has its own handshake bound.
	dialTimeout = 10 * time.Second
	// maxHeaderBytes bounds the response header block.
	maxHeaderBytes = 64 << 10
)

var (
	// ErrScheme refuses a URL whose scheme is not http or https.
	ErrScheme = errors.New("url scheme not allowed")
	// ErrInvalidURL refuses a URL without a usable host.
	ErrInvalidURL = errors.New("invalid url")
	// ErrHostBlocked refuses a host that matches the blocked hosts.
	ErrHostBlocked = errors.New("host blocked")
	// ErrHostNotAllowed refuses a host outside a non-empty allowed list.
	ErrHostNotAllowed = errors.New("host not allowed")
	// ErrNoAllowedHosts refuses every request of a guard that requires an
	// allowed host list and has none.
	ErrNoAllowedHosts = errors.New("no hosts allowed")
	// ErrAddressRefused refuses a connection to a loopback, private,
	// link-local or otherwise non-public address, or to a name that reaches
	// one (localhost, cloud metadata names).
	ErrAddressRefused = errors.New("address refused")
	// ErrTooManyRedirects stops a chain of redirects at the limit.
	ErrTooManyRedirects = errors.New("too many redirects")
	// ErrTimeout reports a request that did not complete in time.
	ErrTimeout = errors.New("request timed out")
	// ErrInvalidRule reports an entry of [Options] that is not a host,
	// "*.domain" pattern, address or CIDR.
	ErrInvalidRule = errors.New("invalid host or address rule")
)

// RefusedError is a request the guard refused. Err is one of the package's
// sentinels; errors.Is sees through to it.
type RefusedError struct {
	// Err is ErrScheme, ErrInvalidURL, ErrHostBlocked, ErrHostNotAllowed,
	// ErrNoAllowedHosts, ErrAddressRefused or ErrTooManyRedirects.
	Err error
	// Host is the normalized host of the refused URL or connection.
	Host string
	// Addr is the refused address, for ErrAddressRefused after a lookup.
	Addr netip.Addr
	// Reason says what was refused and why, in a few words.
	Reason string
}

func (e *RefusedError) Error() string {
	if e.Reason == "" {
		return e.Err.Error()
	}
	return e.Err.Error() + ": " + e.Reason
}

func (e *RefusedError) Unwrap() error { return e.Err }

// Resolver looks up the addresses of a host. *net.Resolver implements it;
// tests substitute a map so that names resolve to listeners on 127.0.0.1.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Options configures a [Guard]. The zero value is the default: any public
// host, no private address, 5 redirects, 30 s, 2 MiB.
type Options struct {
	// AllowedHosts, when non-empty, is the closed set of hosts requests may
	// reach: exact names or addresses, "*.example.com" for every subdomain
	// of example.com (not example.com itself), or "*" for every host.
	// Empty means every public host, unless RequireAllowedHosts is set.
	AllowedHosts []string
	// BlockedHosts are never reached, whatever AllowedHosts says. Same
	// patterns as AllowedHosts.
	BlockedHosts []string
	// RequireAllowedHosts makes an empty AllowedHosts refuse everything
	// (ErrNoAllowedHosts) instead of meaning "any public host".
	RequireAllowedHosts bool
	// AllowPrivate exempts destinations from the address checks: CIDRs
	// ("10.1.0.0/16"), single addresses ("127.0.0.1", "::1") or host
	// patterns ("intranet.example", "*.corp.example"), whose every address
	// is then accepted. Host rules still apply to them.
	AllowPrivate []string
	// MaxRedirects is how many redirects a request follows; zero means
	// DefaultMaxRedirects and a negative value means none (the 3xx response
	// is returned as it is).
	MaxRedirects int
	// Timeout bounds a whole request, body included; zero means
	// DefaultTimeout.
	Timeout time.Duration
	// MaxBytes is the largest body [Guard.Do] reads; zero means
	// DefaultMaxBytes.
	MaxBytes int64
	// Resolver looks up host names; nil means net.DefaultResolver.
	Resolver Resolver
	// RootCAs verifies servers' certificates; nil means the system's
	// roots. An operator with an internal CA sets it.
	RootCAs *x509.CertPool
	// Logger receives one line per refusal and per redirect; the zero value
	// logs nothing.
	Logger zerolog.Logger
}

// Validate reports the first entry of AllowedHosts, BlockedHosts or
// AllowPrivate that is not a valid pattern, wrapping [ErrInvalidRule].
func (o Options) Validate() error {
	_, err := compile(o)
	return err
}

// compiled holds the parsed rules of a Guard.
type compiled struct {
	allowed      hostSet
	blocked      hostSet
	privateHosts hostSet
	privateAddrs []netip.Prefix
}

func compile(o Options) (compiled, error) {
	var c compiled
	var err error
	if c.allowed, err = compileHosts("allowed hosts", o.AllowedHosts, true); err != nil {
		return c, err
	}
	if c.blocked, err = compileHosts("blocked hosts", o.BlockedHosts, true); err != nil {
		return c, err
	}
	var hosts []string
	for _, e := range o.AllowPrivate {
		s := strings.TrimSpace(e)
		if p, perr := netip.ParsePrefix(s); perr == nil {
			c.privateAddrs = append(c.privateAddrs, p.Masked())
			continue
		}
		if a, aerr := netip.ParseAddr(strings.Trim(s, "[]")); aerr == nil {
			a = a.WithZone("")
			c.privateAddrs = append(c.privateAddrs, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		hosts = append(hosts, s)
	}
	if c.privateHosts, err = compileHosts("allowed private destinations", hosts, false); err != nil {
		return c, err
	}
	return c, nil
}

// Guard is an SSRF-guarded HTTP client. It is safe for concurrent use and
// immutable after [New].
type Guard struct {
	rules        compiled
	require      bool
	maxRedirects int
	timeout      time.Duration
	maxBytes     int64
	resolver     Resolver
	log          zerolog.Logger
	transport    *http.Transport
	client       *http.Client
}

// New builds a guard.
//
// # Errors
//
// An invalid entry in the options' host or address lists wraps
// [ErrInvalidRule] and names the entry.
func New(o Options) (*Guard, error) {
	rules, err := compile(o)
	if err != nil {
		return nil, err
	}
	g := &Guard{
		rules:        rules,
		require:      o.RequireAllowedHosts,
		maxRedirects: o.MaxRedirects,
		timeout:      o.Timeout,
		maxBytes:     o.MaxBytes,
		resolver:     o.Resolver,
		log:          o.Logger,
	}
	if g.maxRedirects == 0 {
		g.maxRedirects = DefaultMaxRedirects
	}
	if g.timeout <= 0 {
		g.timeout = DefaultTimeout
	}
	if g.maxBytes <= 0 {
		g.maxBytes = DefaultMaxBytes
	}
	if g.resolver == nil {
		g.resolver = net.DefaultResolver
	}
	g.transport = &http.Transport{
		Proxy:                  nil, // never from the environment
		DialContext:            g.dialContext,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    dialTimeout,
		ResponseHeaderTimeout:  g.timeout,
		ExpectContinueTimeout:  time.Second,
		MaxIdleConns:           16,
		MaxIdleConnsPerHost:    2,
		IdleConnTimeout:        30 * time.Second,
		MaxResponseHeaderBytes: maxHeaderBytes,
		TLSClientConfig:        &tls.Config{RootCAs: o.RootCAs, MinVersion: tls.VersionTLS12},
	}
	g.client = &http.Client{
		Transport:     g.transport,
		CheckRedirect: g.checkRedirect,
		Timeout:       g.timeout,
	}
	return g, nil
}

// Client returns the guarded *http.Client. Its dialer and redirect policy
// apply every check; a caller that reads bodies itself must cap them. Call
// [Guard.CheckURL] first for a clear error before any connection is made.
func (g *Guard) Client() *http.Client { return g.client }

// MaxBytes returns the body cap of [Guard.Do].
func (g *Guard) MaxBytes() int64 { return g.maxBytes }

// Timeout returns the bound on one request.
func (g *Guard) Timeout() time.Duration { return g.timeout }

// MaxRedirects returns how many redirects a request follows (0: none).
func (g *Guard) MaxRedirects() int { return max(g.maxRedirects, 0) }

// HasAllowedHosts reports whether the guard has a non-empty allowed host
// list.
func (g *Guard) HasAllowedHosts() bool { return !g.rules.allowed.empty() }

// CloseIdleConnections closes kept-alive connections that are idle.
func (g *Guard) CloseIdleConnections() { g.transport.CloseIdleConnections() }

// CheckURL applies every check that needs no network: the scheme, the host
// rules, and for an address or a refused name (localhost, cloud metadata)
// the address rules. A nil error does not mean the request will connect:
// the host's addresses are checked when it is dialled.
func (g *Guard) CheckURL(u *url.URL) error {
	if u == nil {
		return &RefusedError{Err: ErrInvalidURL, Reason: "no URL given"}
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		what := "a URL without a scheme"
		if u.Scheme != "" {
			what = fmt.Sprintf("scheme %q", u.Scheme)
		}
		return &RefusedError{Err: ErrScheme, Reason: what + " is not http or https"}
	}
	if u.Opaque != "" || u.Host == "" {
		return &RefusedError{Err: ErrInvalidURL, Reason: "the URL has no host"}
	}
	h, err := NormalizeHost(u.Hostname())
	if err != nil {
		return &RefusedError{Err: ErrInvalidURL, Reason: err.Error()}
	}
	if p := u.Port(); p != "" {
		if _, err := netip.ParseAddrPort("0.0.0.0:" + p); err != nil {
			return &RefusedError{Err: ErrInvalidURL, Host: h, Reason: fmt.Sprintf("port %q is not a number from 0 to 65535", p)}
		}
	}
	if err := g.checkHost(h); err != nil {
		return err
	}
	if g.rules.privateHosts.match(h) {
		return nil
	}
	if a, err := netip.ParseAddr(h); err == nil {
		if g.privateAllowed(a) {
			return nil
		}
		if what := addrClass(a); what != "" {
			return &RefusedError{Err: ErrAddressRefused, Host: h, Addr: a, Reason: fmt.Sprintf("%s is %s", a, what)}
		}
		return nil
	}
	if what := nameClass(h); what != "" {
		return &RefusedError{Err: ErrAddressRefused, Host: h, Reason: fmt.Sprintf("%s is %s", h, what)}
	}
	return nil
}

// checkHost applies the allowed and blocked host rules to a normalized
// host.
func (g *Guard) checkHost(h string) error {
	switch {
	case g.rules.blocked.match(h):
		return &RefusedError{Err: ErrHostBlocked, Host: h, Reason: h + " matches the blocked hosts"}
	case g.rules.allowed.empty() && g.require:
		return &RefusedError{Err: ErrNoAllowedHosts, Host: h, Reason: "the allowed host list is empty, so " + h + " is refused"}
	case !g.rules.allowed.empty() && !g.rules.allowed.match(h):
		return &RefusedError{Err: ErrHostNotAllowed, Host: h, Reason: h + " is not among the allowed hosts"}
	}
	return nil
}

// privateAllowed reports whether the operator exempted address a.
func (g *Guard) privateAllowed(a netip.Addr) bool {
	a = a.WithZone("")
	u := a.Unmap()
	for _, p := range g.rules.privateAddrs {
		if p.Contains(a) || p.Contains(u) {
			return true
		}
	}
	return false
}

func (g *Guard) refuse(e *RefusedError) *RefusedError {
	ev := g.log.Info().Str("host", e.Host).Str("refused", e.Err.Error())
	if e.Addr.IsValid() {
		ev = ev.Str("addr", e.Addr.String())
	}
	ev.Msg("outbound request refused")
	return e
}

// dialContext resolves the host itself, checks every address and connects
// to the first acceptable one. Connecting to the address that was checked
// (never re-resolving) is what defeats DNS rebinding.
func (g *Guard) dialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, &RefusedError{Err: ErrInvalidURL, Reason: fmt.Sprintf("cannot split %q into host and port", addr)}
	}
	h, err := NormalizeHost(host)
	if err != nil {
		return nil, &RefusedError{Err: ErrInvalidURL, Reason: err.Error()}
	}
	portNum, err := netip.ParseAddrPort("0.0.0.0:" + port)
	if err != nil {
		return nil, &RefusedError{Err: ErrInvalidURL, Host: h, Reason: fmt.Sprintf("port %q is not a number", port)}
	}
	exempt := g.rules.privateHosts.match(h)
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(h); err == nil {
		addrs = []netip.Addr{a}
	} else {
		if what := nameClass(h); what != "" && !exempt {
			return nil, g.refuse(&RefusedError{Err: ErrAddressRefused, Host: h, Reason: fmt.Sprintf("%s is %s", h, what)})
		}
		addrs, err = g.resolver.LookupNetIP(ctx, "ip", h)
		if err != nil {
			var dnsErr *net.DNSError
			if errors.As(err, &dnsErr) {
				return nil, err // already names the host
			}
			return nil, fmt.Errorf("look up %s: %w", h, err)
		}
	}
	var ok []netip.Addr
	var refused *RefusedError
	for _, a := range addrs {
		a = a.WithZone("")
		if exempt || g.privateAllowed(a) {
			ok = append(ok, a.Unmap())
			continue
		}
		if what := addrClass(a); what != "" {
			if refused == nil {
				reason := fmt.Sprintf("%s is %s", a, what)
				if a.String() != h {
					reason = fmt.Sprintf("%s resolves to %s, %s", h, a, what)
				}
				refused = &RefusedError{Err: ErrAddressRefused, Host: h, Addr: a, Reason: reason}
			}
			continue
		}
		ok = append(ok, a.Unmap())
	}
	if len(ok) == 0 {
		if refused != nil {
			return nil, g.refuse(refused)
		}
		return nil, fmt.Errorf("look up %s: no addresses", h)
	}
	d := &net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second, Control: g.control(exempt, h)}
	var firstErr error
	for _, a := range ok {
		conn, err := d.DialContext(ctx, network, netip.AddrPortFrom(a, portNum.Port()).String())
		if err == nil {
			return conn, nil
		}
		if firstErr == nil {
			firstErr = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, firstErr
}

// control checks the address the socket is about to connect to, once more,
// as the last step before connect(2).
func (g *Guard) control(exempt bool, host string) func(network, address string, _ syscall.RawConn) error {
	return func(_, address string, _ syscall.RawConn) error {
		if exempt {
			return nil
		}
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return &RefusedError{Err: ErrAddressRefused, Host: host, Reason: fmt.Sprintf("cannot check the address %q", address)}
		}
		a := ap.Addr().WithZone("")
		if g.privateAllowed(a) {
			return nil
		}
		if what := addrClass(a); what != "" {
			return g.refuse(&RefusedError{Err: ErrAddressRefused, Host: host, Addr: a, Reason: fmt.Sprintf("%s is %s", a, what)})
		}
		return nil
	}
}

// safeRedirectHeaders are the request headers kept when a redirect leaves
// the origin of the first request. Everything else (Authorization, API
// keys in custom headers, cookies) stays with the origin it was meant for.
var safeRedirectHeaders = map[string]bool{
	"Accept":          true,
	"Accept-Encoding": true,
	"Accept-Language": true,
	"User-Agent":      true,
	"Referer":         true,
}

func (g *Guard) checkRedirect(req *http.Request, via []*http.Request) error {
	if g.maxRedirects < 0 {
		return http.ErrUseLastResponse
	}
	if len(via) > g.maxRedirects {
		return g.refuse(&RefusedError{Err: ErrTooManyRedirects, Host: req.URL.Hostname(),
			Reason: fmt.Sprintf("stopped after %d redirects, before %s", g.maxRedirects, req.URL.Redacted())})
	}
	if err := g.CheckURL(req.URL); err != nil {
		var re *RefusedError
		if errors.As(err, &re) {
			re.Reason = "redirect to " + req.URL.Redacted() + ": " + re.Reason
			g.refuse(re)
		}
		return err
	}
	if first := via[0].URL; !sameOrigin(first, req.URL) {
		for k := range req.Header {
			if !safeRedirectHeaders[k] {
				delete(req.Header, k)
			}
		}
	}
	// Only the origin: a path or query chosen by the server may carry
	// anything, including credentials the caller sent.
	g.log.Debug().Int("hop", len(via)).Str("to", req.URL.Scheme+"://"+req.URL.Host).Msg("following redirect")
	return nil
}

func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}

// Response is a response whose body was read up to a cap.
type Response struct {
	// URL is the final URL, after redirects.
	URL *url.URL
	// StatusCode and Status are as in net/http ("200 OK").
	StatusCode int
	Status     string
	Header     http.Header
	// Body holds at most the cap's worth of the body, after any transport
	// decompression.
	Body []byte
	// Truncated says the body went on past the cap; reading stopped there.
	Truncated bool
}

// Do sends req through the guard and reads at most maxBytes of the body
// (zero or more than [Guard.MaxBytes] means MaxBytes), then stops reading
// and closes the connection's body.
//
// # Errors
//
// A refusal is a [*RefusedError]; a request that ran out of time wraps
// [ErrTimeout]; the caller's cancellation wraps the context's error; other
// failures (no such host, connection refused, TLS) say which request
// failed. No error text contains the URL's password or a header value.
func (g *Guard) Do(req *http.Request, maxBytes int64) (*Response, error) {
	if err := g.CheckURL(req.URL); err != nil {
		var re *RefusedError
		if errors.As(err, &re) {
			g.refuse(re)
		}
		return nil, err
	}
	limit := g.maxBytes
	if maxBytes > 0 && maxBytes < limit {
		limit = maxBytes
	}
	resp, err := g.client.Do(req)
	if err != nil {
		return nil, g.explain(req, err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	if cl := resp.ContentLength; cl > 0 {
		buf.Grow(int(min(cl, limit)) + 1)
	}
	_, err = io.Copy(&buf, io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, g.explain(req, err)
	}
	out := &Response{
		URL:        resp.Request.URL,
		StatusCode: resp.StatusCode,
		Status:     resp.Status,
		Header:     resp.Header,
		Body:       buf.Bytes(),
	}
	if int64(len(out.Body)) > limit {
		out.Body = out.Body[:limit]
		out.Truncated = true
	}
	return out, nil
}

// explain turns a transport error into one of the package's errors.
func (g *Guard) explain(req *http.Request, err error) error {
	var re *RefusedError
	if errors.As(err, &re) {
		return re
	}
	if cerr := req.Context().Err(); cerr != nil && !errors.Is(cerr, context.DeadlineExceeded) {
		return fmt.Errorf("%s %s: %w", req.Method, req.URL.Redacted(), cerr)
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return fmt.Errorf("%s %s: %w (limit %s)", req.Method, req.URL.Redacted(), ErrTimeout, g.timeout)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Errorf("%s %s: %w", req.Method, req.URL.Redacted(), err)
}
