package web

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/talonhq/talon/netguard"
	"github.com/talonhq/talon/tool"
)

// maxURLLength bounds the url argument.
const maxURLLength = 8192

// parseURL parses the url argument. A URL without a scheme gets a message
// that says to add one rather than a refusal for its scheme.
func parseURL(raw string) (*url.URL, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return nil, errors.New("url is required: give a full URL such as https://example.com/page")
	}
	if len(s) > maxURLLength {
		return nil, fmt.Errorf("url is %d bytes long; the limit is %d", len(s), maxURLLength)
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("url %q cannot be parsed: give a full URL such as https://example.com/page", s)
	}
	if u.Scheme == "" {
		return nil, fmt.Errorf("url %q has no scheme: write it with https:// or http://", s)
	}
	return u, nil
}

// section names a tool's config table in messages.
func section(name string) string { return "[tools." + name + "]" }

// netFailure turns an error from the guard into a failed result that says
// what happened and what to do next. ok is false when the caller cancelled:
// that is the caller's error to return, not a tool result.
func netFailure(ctx context.Context, name string, u *url.URL, err error) (tool.Result, error) {
	if cerr := ctx.Err(); cerr != nil && !errors.Is(cerr, context.DeadlineExceeded) {
		return tool.Result{}, cerr
	}
	target := u.Redacted()
	var re *netguard.RefusedError
	errors.As(err, &re)
	switch {
	case errors.Is(err, netguard.ErrScheme):
		return tool.Failure("%s refused %s: %v; only http and https URLs can be requested", name, target, errText(re, err)), nil
	case errors.Is(err, netguard.ErrInvalidURL):
		return tool.Failure("%s refused %s: %v; give a full URL such as https://example.com/page", name, target, errText(re, err)), nil
	case errors.Is(err, netguard.ErrNoAllowedHosts):
		return tool.Failure("%s has no allowed domains, so every request is refused: the operator lists the hosts it may call in %s allowed_domains of talon.toml, for example allowed_domains = [\"api.example.com\"]", name, section(name)), nil
	case errors.Is(err, netguard.ErrHostNotAllowed):
		return tool.Failure("%s refused %s: %s is not in %s allowed_domains; use a URL on an allowed host, or ask the operator to add this one", name, target, hostOf(re), section(name)), nil
	case errors.Is(err, netguard.ErrHostBlocked):
		return tool.Failure("%s refused %s: %s is in %s blocked_domains; use another source", name, target, hostOf(re), section(name)), nil
	case errors.Is(err, netguard.ErrAddressRefused):
		return tool.Failure("%s refused %s: %v; talon does not connect to loopback, private, link-local or cloud metadata addresses unless the operator lists them in %s allow_private", name, target, errText(re, err), section(name)), nil
	case errors.Is(err, netguard.ErrTooManyRedirects):
		return tool.Failure("%s gave up on %s: %v; request the final URL directly if you know it", name, target, errText(re, err)), nil
	case errors.Is(err, netguard.ErrTimeout):
		return tool.Failure("%s: %v; the server is slow or unreachable, try again later or ask the operator to raise %s timeout_seconds", name, err, section(name)), nil
	}
	return tool.Failure("%s could not complete the request: %v; check the URL and try again", name, err), nil
}

func hostOf(re *netguard.RefusedError) string {
	if re != nil && re.Host != "" {
		return re.Host
	}
	return "the host"
}

func errText(re *netguard.RefusedError, err error) string {
	if re != nil && re.Reason != "" {
		return re.Reason
	}
	return err.Error()
}

// sizeNote is the line appended to a body cut at limit bytes.
func sizeNote(limit, operatorLimit int64) string {
	if limit < operatorLimit {
		return fmt.Sprintf("[truncated: only the first %d bytes of the body were read; pass a larger max_bytes, up to %d, to read more]", limit, operatorLimit)
	}
	return fmt.Sprintf("[truncated: only the first %d bytes of the body were read, the most this tool may read; request a smaller or more specific resource]", limit)
}
