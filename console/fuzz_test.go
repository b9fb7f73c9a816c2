package console

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/talonhq/talon/locales"
)

// FuzzSearch feeds the receipts search form anything a browser could
// send: it must refuse or accept, never panic, and what it accepts must
// be bounded.
func FuzzSearch(f *testing.F) {
	for _, s := range [][5]string{
		{"file_write", "", "", "", ""},
		{"calc.*", "sess-(a|b)", "2026-03-01T12:00", "2026-03-02", ""},
		{"((a{1000}){1000}){1000}", "", "", "", ""},
		{"(", "[", "yesterday", "99999-01-01", "legacy:0"},
		{"", "", "0001-01-01T00:00", "9999-12-31T23:59:59", "0123456789abcdef:18446744073709551615"},
	} {
		f.Add(s[0], s[1], s[2], s[3], s[4])
	}
	v := &view{loc: mustBundle(f).Localizer("en")}
	f.Fuzz(func(t *testing.T, tool, session, since, until, before string) {
		o, bad := parseSearch(v, receiptSearch{Tool: tool, Session: session, Since: since, Until: until, Before: before})
		if bad != "" {
			return
		}
		if len(tool) > maxPattern || len(session) > maxPattern {
			t.Fatalf("accepted a pattern longer than %d", maxPattern)
		}
		if o.Limit != receiptsPage || o.MaxScan != searchScan {
			t.Fatalf("page %d, scan %d: the search is not bounded", o.Limit, o.MaxScan)
		}
		if !o.Filter.Since.IsZero() && !o.Filter.Until.IsZero() && !o.Filter.Until.After(o.Filter.Since) {
			t.Fatalf("accepted a range that ends before it starts: %v .. %v", o.Filter.Since, o.Filter.Until)
		}
	})
}

// FuzzCSRF checks that no token but the one drawn for a session passes.
func FuzzCSRF(f *testing.F) {
	c := &Console{now: time.Now}
	copy(c.key[:], "fuzzing key for csrf tokens.....")
	good := c.csrfToken("AAAAAAAAAAAAAAAAAAAAAAAA")
	f.Add("AAAAAAAAAAAAAAAAAAAAAAAA", good)
	f.Add("AAAAAAAAAAAAAAAAAAAAAAAA", strings.Replace(good, ".", "..", 1))
	f.Add("", "")
	f.Add("BBBBBBBBBBBBBBBBBBBBBBBB", good)
	f.Fuzz(func(t *testing.T, sid, tok string) {
		if c.checkCSRF(sid, tok) != "" {
			return
		}
		// What passed must be exactly the token drawn for this session at
		// the time it names.
		ts, _, _ := strings.Cut(tok, ".")
		if want := ts + "." + base64.RawURLEncoding.EncodeToString(c.mac("csrf", sid, ts)[:18]); tok != want || sid == "" {
			t.Fatalf("a token that is not the session's passed: sid %q token %q", sid, tok)
		}
	})
}

func mustBundle(tb testing.TB) *locales.Bundle {
	tb.Helper()
	b, err := locales.New(locales.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
