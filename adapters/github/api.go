package github

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/talonhq/talon/netguard"
	"github.com/talonhq/talon/tool"
)

// apiVersion is the REST API version the tool speaks.
const apiVersion = "2022-11-28"

// client sends the requests of one call.
type client struct {
	t     *GitHub
	token string
	ctx   context.Context
	// red hides the token in everything the server sends.
	red *netguard.Redactor
}

// failure is a call that cannot go on: a message for the model, or the
// caller's cancellation.
type failure struct {
	msg      string
	canceled error
}

func (f *failure) result() (tool.Result, error) {
	if f.canceled != nil {
		return tool.Result{}, f.canceled
	}
	return tool.Failure("%s", f.msg), nil
}

// answer is a successful response.
type answer struct {
	data   []byte
	header http.Header
}

// do sends one request and maps every status but 2xx to a failure.
func (c client) do(method string, u *url.URL, payload []byte) (*answer, *failure) {
	var body *bytes.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	var req *http.Request
	var err error
	if body != nil {
		req, err = http.NewRequestWithContext(c.ctx, method, u.String(), body)
	} else {
		req, err = http.NewRequestWithContext(c.ctx, method, u.String(), nil)
	}
	if err != nil {
		return nil, &failure{msg: fmt.Sprintf("the github tool could not build the request: %v; the operator checks base_url in [tools.github]", err)}
	}
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", apiVersion)
	req.Header.Set("User-Agent", "talon-github/1")
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.t.guard.Do(req, 0)
	if err != nil {
		if cerr := c.ctx.Err(); cerr != nil && !errors.Is(cerr, context.DeadlineExceeded) {
			return nil, &failure{canceled: cerr}
		}
		return nil, &failure{msg: fmt.Sprintf("the github tool could not reach %s: %s; try again later, or the operator checks base_url and allow_private in [tools.github]", c.t.base.Host, c.red.String(err.Error()))}
	}
	// Everything the server sent is scrubbed of the token before it is
	// decoded, explained or shown.
	resp.Body = c.red.Bytes(resp.Body)
	for _, vs := range resp.Header {
		for i, v := range vs {
			vs[i] = c.red.String(v)
		}
	}
	resp.Status = c.red.String(resp.Status)
	c.t.log.Debug().Str("method", method).Str("path", u.Path).Int("status", resp.StatusCode).Int("bytes", len(resp.Body)).Msg("github")
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		if resp.Truncated {
			return nil, &failure{msg: fmt.Sprintf("GitHub answered with more than %d bytes; ask for fewer items with a smaller limit", maxResponseBytes)}
		}
		return &answer{data: resp.Body, header: resp.Header}, nil
	}
	return nil, &failure{msg: c.explain(method, u, resp.StatusCode, resp.Status, resp.Header, resp.Body)}
}

// apiError is GitHub's error document.
type apiError struct {
	Message string `json:"message"`
	Errors  []struct {
		Resource string `json:"resource"`
		Field    string `json:"field"`
		Code     string `json:"code"`
		Message  string `json:"message"`
	} `json:"errors"`
}

func (e apiError) detail() string {
	parts := []string{}
	if e.Message != "" {
		parts = append(parts, e.Message)
	}
	for _, x := range e.Errors {
		switch {
		case x.Message != "":
			parts = append(parts, x.Message)
		case x.Field != "":
			parts = append(parts, fmt.Sprintf("%s %s", x.Field, strings.ReplaceAll(x.Code, "_", " ")))
		}
	}
	return clip(strings.Join(parts, "; "), 500)
}

// explain says what a failed status means and what to do about it.
func (c client) explain(method string, u *url.URL, code int, status string, h http.Header, body []byte) string {
	var e apiError
	_ = json.Unmarshal(body, &e)
	detail := e.detail()
	if detail == "" {
		detail = status
	}
	target := strings.TrimPrefix(u.Path, c.t.base.Path)
	switch {
	case code >= 300 && code < 400:
		return fmt.Sprintf("GitHub answered %s with a redirect, which the github tool does not follow so the token never leaves its host: the operator checks base_url in [tools.github] (GitHub Enterprise Server uses https://HOST/api/v3)", status)
	case code == http.StatusUnauthorized && c.token == "":
		return "GitHub requires authentication for this request (401): the operator sets token = \"${GITHUB_TOKEN}\" in [tools.github] and exports GITHUB_TOKEN"
	case code == http.StatusUnauthorized:
		return fmt.Sprintf("GitHub rejected the token (401 %s): the operator checks that the token in [tools.github] is valid and has not expired", detail)
	case (code == http.StatusForbidden || code == http.StatusTooManyRequests) && (h.Get("X-RateLimit-Remaining") == "0" || strings.Contains(strings.ToLower(e.Message), "rate limit")):
		when := "in a while"
		if reset, err := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64); err == nil {
			when = "at " + time.Unix(reset, 0).UTC().Format("15:04 UTC")
		}
		if c.token == "" {
			return fmt.Sprintf("GitHub's rate limit for anonymous requests is used up; it resets %s: wait, or the operator sets token in [tools.github] for a higher limit", when)
		}
		return fmt.Sprintf("GitHub's rate limit for this token is used up; it resets %s: wait until then", when)
	case code == http.StatusForbidden:
		return fmt.Sprintf("GitHub refused %s %s (403: %s): the token lacks the permission this needs (issues or pull requests, read or write, on this repository); the operator grants it or uses another token", method, target, detail)
	case code == http.StatusNotFound:
		return fmt.Sprintf("GitHub found nothing at %s (404): check owner, repo and number; a private repository is visible only with a token that has access to it", target)
	case code == http.StatusGone:
		return fmt.Sprintf("%s is gone (410: %s): issues may be disabled on this repository", target, detail)
	case code == http.StatusUnprocessableEntity:
		return fmt.Sprintf("GitHub refused the input (422: %s): fix the arguments; for create_pull, head and base must be existing, different branches with no pull request open between them", detail)
	case code >= 500:
		return fmt.Sprintf("GitHub failed on its side (%s): try again later", status)
	}
	return fmt.Sprintf("GitHub answered %s (%s): check the arguments", status, detail)
}

// list reads pages until limit items are collected, the last page, or
// maxPages. more says items were left unread.
func (c client) list(cl call, limit int) ([]item, bool, *failure) {
	u := c.t.endpoint(cl)
	q := u.Query()
	q.Set("per_page", strconv.Itoa(min(perPage, limit)))
	u.RawQuery = q.Encode()
	var out []item
	for range maxPages {
		ans, fail := c.do(http.MethodGet, u, nil)
		if fail != nil {
			return nil, false, fail
		}
		var page []item
		if err := json.Unmarshal(ans.data, &page); err != nil {
			return nil, false, &failure{msg: "GitHub answered in a form the github tool does not understand: the operator checks base_url in [tools.github]"}
		}
		for _, it := range page {
			if cl.Action == ListIssues && it.PullRequest != nil {
				continue // the issues endpoint lists pull requests too
			}
			if len(out) == limit {
				return out, true, nil
			}
			out = append(out, it)
		}
		next := nextLink(ans.header.Get("Link"))
		if next == nil {
			return out, false, nil
		}
		if len(out) == limit {
			return out, true, nil
		}
		if next.Scheme != c.t.base.Scheme || next.Host != c.t.base.Host {
			return out, true, nil // a next page elsewhere is not followed
		}
		u = next
	}
	return out, true, nil
}

// nextLink finds rel="next" in a Link header.
func nextLink(h string) *url.URL {
	for _, part := range strings.Split(h, ",") {
		target, params, ok := strings.Cut(strings.TrimSpace(part), ";")
		if !ok || !strings.HasPrefix(target, "<") || !strings.HasSuffix(target, ">") {
			continue
		}
		for _, p := range strings.Split(params, ";") {
			if strings.ReplaceAll(strings.TrimSpace(p), " ", "") == `rel="next"` {
				u, err := url.Parse(target[1 : len(target)-1])
				if err != nil || !u.IsAbs() {
					return nil
				}
				return u
			}
		}
	}
	return nil
}
