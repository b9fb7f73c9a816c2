package console

import (
	"fmt"
	"html"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/text/language"

	"github.com/talonhq/talon/locales"
	"github.com/talonhq/talon/receipts"
	"github.com/talonhq/talon/tool"
)

// languages are the languages the console's own messages are written in,
// each named in itself for the switch.
var languages = []struct {
	Tag  string
	Name string
}{
	{"en", "English"},
	{"ja", "日本語"},
}

var langMatcher = language.NewMatcher([]language.Tag{language.English, language.Japanese})

// view is what every template sees: the request's language, session and
// page, and the page's own data.
type view struct {
	loc   *locales.Localizer
	sid   string
	Lang  string
	Title string
	Nav   string
	CSRF  string
	// URL is the page's path and query, for the language switch.
	URL   string
	query url.Values
	// Pending is how many calls wait for an answer.
	Pending int
	// Token is set when the server requires a token.
	Token bool
	// Now is the time the page was rendered.
	Now  time.Time
	Data any
}

// view prepares the view of a request: its session (set when missing),
// its language (a ?lang= switch is kept in a cookie) and a CSRF token.
func (c *Console) view(w http.ResponseWriter, r *http.Request) *view {
	sid := c.sessionOf(w, r)
	lang := c.language(w, r)
	v := &view{
		loc: c.rt.Locales().Localizer(lang), sid: sid, Lang: lang, CSRF: c.csrfToken(sid),
		URL: r.URL.Path, query: r.URL.Query(), Token: c.access.TokenRequired(), Now: c.now().UTC(),
	}
	if c.opts.Queue != nil {
		v.Pending = len(c.opts.Queue.List())
	}
	return v
}

// language picks the page's language: a ?lang= switch (kept in a cookie),
// else the cookie, else Accept-Language, else the server's locale.
func (c *Console) language(w http.ResponseWriter, r *http.Request) string {
	if l := r.URL.Query().Get("lang"); l != "" {
		if tag, ok := supported(l); ok {
			setCookie(w, r, langCookie, tag)
			return tag
		}
	}
	if ck, err := r.Cookie(langCookie); err == nil {
		if tag, ok := supported(ck.Value); ok {
			return tag
		}
	}
	if al := r.Header.Get("Accept-Language"); al != "" && len(al) < 1024 {
		if tags, _, err := language.ParseAcceptLanguage(al); err == nil && len(tags) > 0 {
			if _, i, conf := langMatcher.Match(tags...); conf != language.No {
				return languages[i].Tag
			}
		}
	}
	if tag, ok := supported(c.opts.Locale); ok {
		return tag
	}
	return "en"
}

// supported maps a tag to one of the console's languages.
func supported(s string) (string, bool) {
	norm, ok := locales.Normalize(s)
	if !ok {
		return "", false
	}
	_, i, conf := langMatcher.Match(language.Make(norm))
	if conf == language.No {
		return "", false
	}
	return languages[i].Tag, true
}

// T renders the console message "console-"+id with variables given as
// name, value pairs.
func (v *view) T(id string, kv ...any) string {
	var vars map[string]any
	if len(kv) > 0 {
		vars = make(map[string]any, len(kv)/2)
		for i := 0; i+1 < len(kv); i += 2 {
			name, _ := kv[i].(string)
			vars[name] = kv[i+1]
		}
	}
	return v.loc.Message("console-"+id, vars)
}

// Tier renders a tier as a word of the page's language.
func (v *view) Tier(t any) string {
	switch fmt.Sprint(t) {
	case "low":
		return v.T("tier-low")
	case "medium":
		return v.T("tier-medium")
	case "high":
		return v.T("tier-high")
	}
	return fmt.Sprint(t)
}

// Time renders an instant in UTC.
func (v *view) Time(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// Waited renders how long ago t was, in whole seconds, minutes or hours.
func (v *view) Waited(t time.Time) string {
	return v.Duration(v.Now.Sub(t))
}

// Duration renders d briefly in the page's language.
func (v *view) Duration(d time.Duration) string {
	switch {
	case d < time.Second:
		return v.T("duration-ms", "n", d.Milliseconds())
	case d < time.Minute:
		return v.T("duration-s", "n", int64(d/time.Second))
	case d < time.Hour:
		return v.T("duration-min", "n", int64(d/time.Minute), "s", int64(d%time.Minute/time.Second))
	default:
		return v.T("duration-h", "n", int64(d/time.Hour), "min", int64(d%time.Hour/time.Minute))
	}
}

// Languages lists the language switch's entries.
func (v *view) Languages() []langLink {
	out := make([]langLink, len(languages))
	for i, l := range languages {
		q := url.Values{}
		for k, vs := range v.query {
			q[k] = vs
		}
		q.Set("lang", l.Tag)
		out[i] = langLink{Tag: l.Tag, Name: l.Name, Current: l.Tag == v.Lang, Href: v.URL + "?" + q.Encode()}
	}
	return out
}

type langLink struct {
	Tag, Name, Href string
	Current         bool
}

// TierBadge renders a tier as a word in a box whose border also differs
// by tier, so colour is never the only signal.
func (v *view) TierBadge(t any) template.HTML {
	s := fmt.Sprint(t)
	class := "tier-unknown"
	switch s {
	case "low", "medium", "high":
		class = "tier-" + s
	case "":
		return template.HTML("—")
	}
	return template.HTML(`<span class="tier ` + class + `">` + html.EscapeString(v.T("tier-label", "tier", v.Tier(s))) + `</span>`) //nolint:gosec // escaped
}

// Formats are the duration patterns the page's script fills in, {n}
// standing for the number.
func (v *view) Formats() map[string]string {
	return map[string]string{
		"s":   v.T("duration-s", "n", "{n}"),
		"min": v.T("duration-min", "n", "{n}", "s", "{s}"),
		"h":   v.T("duration-h", "n", "{n}", "min", "{min}"),
	}
}

// funcs are the helpers of the templates that need no request.
var funcs = template.FuncMap{
	"join": strings.Join,
	"short": func(s string) string {
		if len(s) > 12 {
			return s[:12]
		}
		return s
	},
	"argv": func(argv []string) string {
		q := make([]string, len(argv))
		for i, a := range argv {
			q[i] = shellQuote(a)
		}
		return strings.Join(q, " ")
	},
	"query": func(kv ...string) template.URL {
		q := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] != "" {
				q.Set(kv[i], kv[i+1])
			}
		}
		return template.URL(q.Encode()) //nolint:gosec // encoded by url.Values
	},
	"unix":      func(t time.Time) int64 { return t.UnixMilli() },
	"chainName": receipts.ChainName,
	"tierOf":    func(t tool.Tier) string { return t.String() },
}

// shellQuote quotes one argument the way a POSIX shell would read it back,
// only where it needs quoting.
func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%+=:,./_-", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func urlQueryEscape(s string) string { return url.QueryEscape(s) }

// AllowedBy renders how a receipted call was allowed.
func (v *view) AllowedBy(s string) string {
	switch s {
	case "auto":
		return v.T("allowed-auto")
	case "approved:user":
		return v.T("allowed-user")
	case "approved:always":
		return v.T("allowed-always")
	}
	return s
}

// OnOff renders whether a protection is active.
func (v *view) OnOff(on bool) string {
	if on {
		return v.T("active")
	}
	return v.T("inactive")
}

// VerifiedText says what the last verification of chain found, from the
// results of the chain itself or of the whole store.
func (v *view) VerifiedText(results []verifyResult, chain string) string {
	var best *verifyResult
	for i := range results {
		r := &results[i]
		if (r.Chain == chain || r.Chain == "" || (chain == receipts.LegacyChain && r.Chain == "")) && (best == nil || r.At.After(best.At)) {
			best = r
		}
	}
	if best == nil {
		return v.T("chain-not-verified")
	}
	return v.VerifiedText1(*best)
}

// VerifiedText1 says what one verification found.
func (v *view) VerifiedText1(r verifyResult) string {
	if r.OK() {
		return v.T("chain-verified", "time", v.Time(r.At), "count", r.Report.Records)
	}
	return v.T("chain-failed", "time", v.Time(r.At))
}

// ChainLabel names what a verification covered: one chain, or every chain
// of the store.
func (v *view) ChainLabel(chain string) string {
	if chain == "" {
		return v.T("all-chains")
	}
	return receipts.ChainName(chain)
}
