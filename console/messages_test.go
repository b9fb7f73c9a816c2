package console

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/locales"
)

// TestEveryPageInBothLanguages renders every page in English and Japanese
// and looks for the placeholder a missing message leaves ({console-...}).
func TestEveryPageInBothLanguages(t *testing.T) {
	f := newFixture(t, fixtureOptions{sandboxCheck: true, reach: "no sandbox"})
	f.call("file_write", writeArgs, "sess-1", "")
	p := f.waiting(1)[0]
	pages := []string{"/console/approvals", "/console/calls", "/console/receipts", "/console/catalog", "/console/policy",
		"/console/policy?tool=file_write&args=" + writeArgs, "/console/plugins", "/console/sandbox", "/console/nowhere",
		"/console/receipts?since=bad", "/console/receipts/bad"}
	for _, lang := range []string{"en", "ja"} {
		for _, path := range pages {
			sep := "?"
			if strings.Contains(path, "?") {
				sep = "&"
			}
			r := f.do(req{path: path + sep + "lang=" + lang})
			if r.status >= 500 {
				t.Errorf("%s in %s: status %d", path, lang, r.status)
			}
			if i := strings.Index(r.body, "{console-"); i >= 0 {
				t.Errorf("%s in %s shows a missing message: %s", path, lang, r.body[i:min(len(r.body), i+60)])
			}
		}
	}
	_ = f.q.Decide(p.ID, approval.No)
	f.result()
}

// TestEveryMessageIsUsed finds each console-* key of en/console.ftl in the
// package's code or templates, so that none is left behind when a page
// changes. Keys completed at run time are matched by their prefix.
func TestEveryMessageIsUsed(t *testing.T) {
	files, err := locales.ReadLocale(locales.Embedded(), "en")
	if err != nil {
		t.Fatal(err)
	}
	var src strings.Builder
	for _, pat := range []string{"*.go", "templates/*.html"} {
		names, _ := filepath.Glob(pat)
		for _, n := range names {
			if strings.HasSuffix(n, "_test.go") {
				continue
			}
			b, err := os.ReadFile(n)
			if err != nil {
				t.Fatal(err)
			}
			src.Write(b)
		}
	}
	text := src.String()
	dynamic := regexp.MustCompile(`^console-(sig|trust|outcome|decision|tier|error-csrf)-`)
	n := 0
	for _, f := range files {
		if f.Path != "en/console.ftl" {
			continue
		}
		for _, e := range f.Resource.Entries() {
			n++
			key := strings.TrimPrefix(e.Key, "console-")
			if dynamic.MatchString(e.Key) {
				continue
			}
			if !strings.Contains(text, `"`+key+`"`) {
				t.Errorf("%s:%d: %s is not used by the console", f.Path, e.Line, e.Key)
			}
		}
	}
	if n < 100 {
		t.Fatalf("found only %d console messages", n)
	}
}
