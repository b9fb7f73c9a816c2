package server

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultPath is where [Server.HTTPHandler] serves MCP.
const DefaultPath = "/mcp"

// DefaultSessionTimeout closes HTTP sessions that have sent nothing for
// this long.
const DefaultSessionTimeout = 24 * time.Hour

// requestHeader links a call to the HTTP request carrying it. The handler
// sets it on every request, replacing anything a client sent.
const requestHeader = "Talon-Request-Token"

var (
	// ErrNonLoopback refuses a bind beyond this machine that was not asked
	// for on the command line.
	ErrNonLoopback = errors.New("refusing a non-loopback listen address")
	// ErrNoToken refuses a bind beyond this machine without a bearer token.
	ErrNoToken = errors.New("refusing to listen beyond loopback without a bearer token")
)

// HTTPOptions configure [Server.HTTPHandler]. The zero value serves
// DefaultPath without a token, to loopback origins only.
type HTTPOptions struct {
	// Token, when set, is required as "Authorization: Bearer <token>" on
	// every request.
	Token string
	// AllowedOrigins are browser origins accepted besides loopback ones,
	// e.g. "https://app.example.com". A request without Origin is
	// accepted; any other origin is refused.
	AllowedOrigins []string
	// Path is where MCP is served; "" means [DefaultPath].
	Path string
	// SessionTimeout closes idle sessions; zero means
	// [DefaultSessionTimeout].
	SessionTimeout time.Duration
}

// HTTPHandler serves MCP over streamable HTTP. Requests are checked in this
// order: path, Origin (DNS rebinding and cross-site requests), bearer
// token. The MCP library additionally refuses requests reaching a loopback
// address with a Host header that is not a loopback name.
func (s *Server) HTTPHandler(o HTTPOptions) http.Handler {
	if o.Path == "" {
		o.Path = DefaultPath
	}
	if o.SessionTimeout <= 0 {
		o.SessionTimeout = DefaultSessionTimeout
	}
	mcpHandler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.sdk },
		&sdk.StreamableHTTPOptions{SessionTimeout: o.SessionTimeout})
	allowed := make(map[string]bool, len(o.AllowedOrigins))
	for _, a := range o.AllowedOrigins {
		allowed[normalizeOrigin(a)] = true
	}
	var want [32]byte
	if o.Token != "" {
		want = sha256.Sum256([]byte(o.Token))
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != o.Path {
			http.Error(w, fmt.Sprintf("talon serves MCP at %s", o.Path), http.StatusNotFound)
			return
		}
		if origin := r.Header.Get("Origin"); !originAllowed(origin, allowed) {
			http.Error(w, fmt.Sprintf("origin %q is not allowed: add it to [serve] allowed_origins if this page should reach talon", origin), http.StatusForbidden)
			return
		}
		if o.Token != "" && !tokenMatches(r, want) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="talon"`)
			http.Error(w, "missing or wrong bearer token: send Authorization: Bearer <[serve] token>", http.StatusUnauthorized)
			return
		}
		r.Header.Del(requestHeader)
		if r.Method == http.MethodPost {
			token := randomHex(12)
			r.Header.Set(requestHeader, token)
			s.requests.Store(token, r.Context())
			defer s.requests.Delete(token)
		}
		mcpHandler.ServeHTTP(w, r)
	})
}

// requestContext returns the context of the HTTP request that carried req,
// or nil for other transports.
func (s *Server) requestContext(req *sdk.CallToolRequest) context.Context {
	if req.Extra == nil || req.Extra.Header == nil {
		return nil
	}
	token := req.Extra.Header.Get(requestHeader)
	if token == "" {
		return nil
	}
	if v, ok := s.requests.Load(token); ok {
		return v.(context.Context)
	}
	return nil
}

// tokenMatches compares the bearer token in constant time (over hashes,
// so the length does not leak either).
func tokenMatches(r *http.Request, want [32]byte) bool {
	scheme, got, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(got)))
	return subtle.ConstantTimeCompare(sum[:], want[:]) == 1
}

// originAllowed accepts no Origin at all (non-browser clients), loopback
// origins, and the configured ones.
func originAllowed(origin string, allowed map[string]bool) bool {
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	if IsLoopbackHost(u.Hostname()) {
		return true
	}
	return allowed[normalizeOrigin(origin)]
}

func normalizeOrigin(o string) string {
	return strings.ToLower(strings.TrimRight(strings.TrimSpace(o), "/"))
}

// IsLoopbackHost reports whether host (a name or an IP, without port) is
// this machine only: "localhost", a *.localhost name or a loopback IP.
// The empty host, meaning every interface, is not.
func IsLoopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// CheckListen decides whether talon may listen on addr. A loopback address
// is always fine. Any other address must come from the command line
// (fromFlag), so a config file alone never exposes the tools to the
// network, and a bearer token must be configured.
func CheckListen(addr string, fromFlag bool, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("listen address %q is not host:port: write it like 127.0.0.1:7357", addr)
	}
	if IsLoopbackHost(host) {
		return nil
	}
	where := host
	if where == "" {
		where = "every interface"
	}
	if !fromFlag {
		return fmt.Errorf("%w %s (%s) from the config file: pass --listen %s on the command line to expose talon beyond this machine, with a token",
			ErrNonLoopback, addr, where, addr)
	}
	if token == "" {
		return fmt.Errorf("%w on %s (%s): anyone who can reach it could call tools; set [serve] token or $TALON_SERVE_TOKEN, or listen on 127.0.0.1",
			ErrNoToken, addr, where)
	}
	return nil
}

// Access holds the access rules of the MCP endpoint for other handlers on
// its listener (the operator's console), so that both refuse the same
// requests: [Access.Guard] applies the Origin check of
// [Server.HTTPHandler] and the Host check the MCP library makes on a
// loopback listener, and [Access.Bearer] the bearer token.
type Access struct {
	allowed map[string]bool
	token   bool
	want    [32]byte
}

// NewAccess compiles the rules of o (its Token and AllowedOrigins).
func NewAccess(o HTTPOptions) *Access {
	a := &Access{allowed: make(map[string]bool, len(o.AllowedOrigins)), token: o.Token != ""}
	for _, s := range o.AllowedOrigins {
		a.allowed[normalizeOrigin(s)] = true
	}
	if a.token {
		a.want = sha256.Sum256([]byte(o.Token))
	}
	return a
}

// Guard refuses with 403 a request whose Origin is neither loopback nor
// allowed, or that reached a loopback address under a Host that is not a
// loopback name (DNS rebinding), and passes the others to next. It does
// not check the token: see [Access.Bearer].
func (a *Access) Guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); !originAllowed(origin, a.allowed) {
			http.Error(w, fmt.Sprintf("origin %q is not allowed: add it to [serve] allowed_origins if this page should reach talon", origin), http.StatusForbidden)
			return
		}
		if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && local != nil {
			lhost, _, _ := net.SplitHostPort(local.String())
			host, _, err := net.SplitHostPort(r.Host)
			if err != nil {
				host = r.Host
			}
			if IsLoopbackHost(lhost) && !IsLoopbackHost(host) {
				http.Error(w, fmt.Sprintf("host %q is not a loopback name: talon listens on loopback, so open it as localhost or 127.0.0.1", r.Host), http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// TokenRequired reports whether a token is set.
func (a *Access) TokenRequired() bool { return a.token }

// Bearer reports whether r may pass the token check as the MCP endpoint
// would let it: no token is set, or r carries it as "Authorization:
// Bearer <token>".
func (a *Access) Bearer(r *http.Request) bool { return !a.token || tokenMatches(r, a.want) }

// TokenMatches compares s with the token in constant time; false when no
// token is set.
func (a *Access) TokenMatches(s string) bool {
	sum := sha256.Sum256([]byte(strings.TrimSpace(s)))
	return a.token && subtle.ConstantTimeCompare(sum[:], a.want[:]) == 1
}
