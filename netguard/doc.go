// Package netguard is talon's one outbound HTTP client: every tool, plugin
// host function or adapter that reaches the network on a model's behalf goes
// through a [Guard], which refuses server-side request forgery (SSRF).
//
// A Guard checks three things, in this order:
//
//   - the URL: only http and https, a host, and the operator's host rules
//     (blocked hosts win over allowed hosts; "*.example.com" matches every
//     subdomain but not example.com itself);
//   - the name: "localhost" and the cloud metadata names
//     (metadata.google.internal and friends) are refused before any lookup;
//   - every address, at connect time: the dialer resolves the host itself,
//     refuses loopback, private, link-local (cloud metadata included),
//     carrier-grade NAT, unspecified, multicast, broadcast, documentation
//     and reserved ranges — also when they hide inside IPv4-mapped, NAT64 or
//     6to4 IPv6 addresses — and connects to exactly the address it checked.
//
// Redirects are followed up to a limit (5 by default), and each hop goes
// through all three checks again, so neither DNS rebinding nor a redirect
// to an internal host gets through. A redirect that leaves the first
// request's origin (scheme, host and port) carries only the Accept headers,
// User-Agent and Referer, so credentials in any header stay with the origin
// they were meant for. Proxies from the environment are never used. An
// operator opens holes explicitly with [Options.AllowPrivate]
// (CIDRs, addresses or host names), for an intranet or for tests.
//
// The smallest use:
//
//	g, err := netguard.New(netguard.Options{})
//	if err != nil {
//		return err
//	}
//	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://example.com/", nil)
//	if err != nil {
//		return err
//	}
//	resp, err := g.Do(req, 1<<20) // body read up to 1 MiB, then reading stops
//
// [Guard.Client] returns the underlying *http.Client for callers that need
// to stream; the same checks apply, but then the caller caps the body.
//
// A [Redactor] hides secrets in what a server sends back: the value sent
// in a header, and every other configured secret, in its literal,
// reversed, hex, base64 (both alphabets, any alignment), percent- and
// JSON-escaped forms. http_request, github and web_search run every
// response through one before the model sees it.
//
// # Errors
//
// A refusal is a [*RefusedError] that wraps one of [ErrScheme],
// [ErrHostBlocked], [ErrHostNotAllowed], [ErrNoAllowedHosts],
// [ErrAddressRefused] or [ErrTooManyRedirects] and names the host and, for
// addresses, the address and its class. Error texts never contain a URL's
// password, and request headers never appear in them.
package netguard
