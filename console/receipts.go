package console

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/talonhq/talon/receipts"
)

// Bounds of a receipts search.
const (
	// receiptsPage is how many receipts one page lists.
	receiptsPage = 50
	// searchScan is how many records one page reads at most; a search
	// that matches little stops there and offers to continue.
	searchScan = 200000
	// maxPattern bounds a tool or session pattern.
	maxPattern = 200
)

// receiptSearch is the Receipts page's form, as given.
type receiptSearch struct {
	Tool, Session, Since, Until, Before string
}

// receiptRow is one receipt with its signature checked.
type receiptRow struct {
	R   receipts.Receipt
	Sig string // "ok", "bad" or "unknown-key"
}

type receiptsData struct {
	Off       bool
	Q         receiptSearch
	Rows      []receiptRow
	Next      string
	Truncated bool
	Scanned   int
	Damaged   string
	Chains    []string
	Verified  []verifyResult
}

// verifyResult is the last verification of a chain ("" for the store).
type verifyResult struct {
	Chain  string
	At     time.Time
	Report receipts.Report
}

// OK reports whether the verification passed.
func (r verifyResult) OK() bool { return r.Report.OK() }

// keyRing reads the store's public keys by key id.
func keyRing(dir string) map[string]ed25519.PublicKey {
	ring := map[string]ed25519.PublicKey{}
	keys, err := receipts.ReadPublicKeys(receipts.PublicKeyPath(dir))
	if err != nil {
		return ring
	}
	for _, k := range keys {
		ring[receipts.KeyID(k)] = k
	}
	return ring
}

func sigStatus(ring map[string]ed25519.PublicKey, r *receipts.Receipt) string {
	pub, ok := ring[r.KeyID]
	switch {
	case !ok:
		return "unknown-key"
	case r.VerifySignature(pub) != nil:
		return "bad"
	}
	return "ok"
}

// parseSearch reads the search form. A refusal names the field and what
// to do.
func parseSearch(v *view, q receiptSearch) (receipts.RecentOptions, string) {
	o := receipts.RecentOptions{Limit: receiptsPage, MaxScan: searchScan, Before: q.Before}
	var matchers []func(*receipts.Receipt) bool
	for _, f := range []struct {
		name, value string
		exact       *string
		field       func(*receipts.Receipt) string
	}{
		{"tool", q.Tool, &o.Filter.Tool, func(r *receipts.Receipt) string { return r.Tool }},
		{"session", q.Session, &o.Filter.Session, func(r *receipts.Receipt) string { return r.Session }},
	} {
		if f.value == "" {
			continue
		}
		if len(f.value) > maxPattern {
			return o, v.T("error-pattern-long", "field", f.name, "max", maxPattern)
		}
		if regexp.QuoteMeta(f.value) == f.value {
			*f.exact = f.value
			continue
		}
		re, err := regexp.Compile("^(?:" + f.value + ")$")
		if err != nil {
			return o, v.T("error-pattern", "field", f.name, "error", err.Error())
		}
		field := f.field
		matchers = append(matchers, func(r *receipts.Receipt) bool { return re.MatchString(field(r)) })
	}
	if len(matchers) > 0 {
		o.Match = func(r *receipts.Receipt) bool {
			for _, m := range matchers {
				if !m(r) {
					return false
				}
			}
			return true
		}
	}
	var err error
	if o.Filter.Since, err = parseWhen(q.Since); err != nil {
		return o, v.T("error-time", "field", "since", "value", clip(q.Since))
	}
	if o.Filter.Until, err = parseWhen(q.Until); err != nil {
		return o, v.T("error-time", "field", "until", "value", clip(q.Until))
	}
	if !o.Filter.Since.IsZero() && !o.Filter.Until.IsZero() && !o.Filter.Until.After(o.Filter.Since) {
		return o, v.T("error-range")
	}
	return o, ""
}

// whenLayouts are what the time fields accept, read as UTC without a zone.
var whenLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02"}

func parseWhen(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if len(s) > 40 {
		return time.Time{}, errors.New("too long")
	}
	for _, l := range whenLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, errors.New("not a time")
}

// chains lists the store's chain ids, the legacy chain first when it has
// segments.
func chains(dir string) []string {
	var out []string
	if segs, _ := filepath.Glob(filepath.Join(dir, "segment-*.jsonl")); len(segs) > 0 {
		out = append(out, receipts.LegacyChain)
	}
	ents, _ := os.ReadDir(filepath.Join(dir, receipts.ChainsDir))
	for _, e := range ents {
		if e.IsDir() && len(e.Name()) == 16 && strings.Trim(e.Name(), "0123456789abcdef") == "" {
			out = append(out, e.Name())
		}
	}
	return out
}

func (c *Console) receiptsPage(w http.ResponseWriter, r *http.Request, v *view) {
	v.Title = v.T("receipts-title")
	v.Nav = "receipts"
	dir := c.opts.ReceiptsDir
	q := r.URL.Query()
	d := receiptsData{Q: receiptSearch{Tool: q.Get("tool"), Session: q.Get("session"), Since: q.Get("since"), Until: q.Get("until"), Before: q.Get("before")}}
	if dir == "" {
		d.Off = true
		v.Data = d
		c.render(w, http.StatusOK, "receipts", v)
		return
	}
	d.Chains = chains(dir)
	d.Verified = c.verifications()
	opts, bad := parseSearch(v, d.Q)
	if bad != "" {
		c.fail(w, r, v, http.StatusBadRequest, bad)
		return
	}
	page, err := receipts.Recent(dir, opts)
	switch {
	case errors.Is(err, receipts.ErrInvalidCursor):
		c.fail(w, r, v, http.StatusBadRequest, v.T("error-cursor"))
		return
	case errors.Is(err, receipts.ErrDamaged):
		d.Damaged = err.Error()
	case errors.Is(err, os.ErrNotExist):
		// no receipt yet
	case err != nil:
		c.fail(w, r, v, http.StatusInternalServerError, err.Error())
		return
	}
	ring := keyRing(dir)
	for i := range page.Receipts {
		d.Rows = append(d.Rows, receiptRow{R: page.Receipts[i], Sig: sigStatus(ring, &page.Receipts[i])})
	}
	d.Next, d.Truncated, d.Scanned = page.Next, page.Truncated, page.Scanned
	v.Data = d
	c.render(w, http.StatusOK, "receipts", v)
}

// receiptData is one receipt, where it sits in its chain and whether it
// verifies.
type receiptData struct {
	R      *receipts.Receipt
	JSON   string
	Sig    string
	Prev   *receipts.Receipt
	First  bool
	PrevOK bool
	Next   *receipts.Receipt
	NextOK bool
	// OK: the signature verifies and the record links to its neighbours.
	OK       bool
	Verified *verifyResult
}

// validReceiptID accepts a ULID: 26 characters of Crockford's base 32.
func validReceiptID(id string) bool {
	if len(id) != 26 {
		return false
	}
	for _, r := range strings.ToUpper(id) {
		if !strings.ContainsRune("0123456789ABCDEFGHJKMNPQRSTVWXYZ", r) {
			return false
		}
	}
	return true
}

func (c *Console) receiptPage(w http.ResponseWriter, r *http.Request, v *view) {
	v.Nav = "receipts"
	id := r.PathValue("id")
	dir := c.opts.ReceiptsDir
	if !validReceiptID(id) {
		c.fail(w, r, v, http.StatusBadRequest, v.T("error-receipt-id", "id", clip(id)))
		return
	}
	if dir == "" {
		c.fail(w, r, v, http.StatusNotFound, v.T("receipts-off"))
		return
	}
	page, err := receipts.Recent(dir, receipts.RecentOptions{Limit: 1, MaxScan: -1,
		Match: func(rec *receipts.Receipt) bool { return strings.EqualFold(rec.ID, id) }})
	if err != nil && !errors.Is(err, receipts.ErrDamaged) && !errors.Is(err, os.ErrNotExist) {
		c.fail(w, r, v, http.StatusInternalServerError, err.Error())
		return
	}
	if len(page.Receipts) == 0 {
		c.fail(w, r, v, http.StatusNotFound, v.T("error-receipt-unknown", "id", id))
		return
	}
	rec := page.Receipts[0]
	d := receiptData{R: &rec, Sig: sigStatus(keyRing(dir), &rec)}
	var pretty bytes.Buffer
	raw, _ := rec.MarshalJSON()
	if json.Indent(&pretty, raw, "", "  ") == nil {
		d.JSON = pretty.String()
	}
	// The neighbours in the chain: the record after it (if any) and the
	// one before, read backward from just above it.
	near, _ := receipts.Recent(dir, receipts.RecentOptions{Chain: receipts.ChainName(rec.Chain), Limit: 3, MaxScan: 3,
		Before: receipts.ChainName(rec.Chain) + ":" + strconv.FormatUint(rec.Seq+2, 10)})
	for i := range near.Receipts {
		n := &near.Receipts[i]
		switch n.Seq {
		case rec.Seq + 1:
			d.Next, d.NextOK = n, n.Prev == rec.Hash()
		case rec.Seq - 1:
			d.Prev, d.PrevOK = n, rec.Prev == n.Hash()
		}
	}
	d.First = rec.Seq == 1 && rec.Prev == receipts.GenesisPrev
	d.OK = d.Sig == "ok" && (d.PrevOK || d.First) && (d.Next == nil || d.NextOK)
	if vr, ok := c.verification(receipts.ChainName(rec.Chain)); ok {
		d.Verified = &vr
	}
	v.Title = v.T("receipt-title", "chain", receipts.ChainName(rec.Chain), "seq", rec.Seq)
	v.Data = d
	c.render(w, http.StatusOK, "receipt", v)
}

// chainPath is what to verify or export for a chain: the store, or one
// chain's directory. The legacy chain shares the store's directory.
func (c *Console) chainPath(chain string) (string, bool) {
	dir := c.opts.ReceiptsDir
	switch {
	case chain == "" || chain == receipts.LegacyChain:
		return dir, true
	case len(chain) == 16 && strings.Trim(chain, "0123456789abcdef") == "":
		p := filepath.Join(dir, receipts.ChainsDir, chain)
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p, true
		}
	}
	return "", false
}

type verifyData struct {
	Result verifyResult
}

// verify checks a chain (or the whole store) from the page: signatures,
// links, torn tails.
func (c *Console) verify(w http.ResponseWriter, r *http.Request, v *view) {
	if !c.stateChange(w, r, v) {
		return
	}
	v.Title = v.T("verify-title")
	v.Nav = "receipts"
	if c.opts.ReceiptsDir == "" {
		c.fail(w, r, v, http.StatusNotFound, v.T("receipts-off"))
		return
	}
	chain := r.PostForm.Get("chain")
	if chain == receipts.LegacyChain {
		chain = ""
	}
	path, ok := c.chainPath(chain)
	if !ok {
		c.fail(w, r, v, http.StatusNotFound, v.T("error-chain", "chain", clip(chain)))
		return
	}
	if !c.verifying.TryLock() {
		c.fail(w, r, v, http.StatusTooManyRequests, v.T("error-verify-busy"))
		return
	}
	rep := receipts.Verify(path, nil)
	c.verifying.Unlock()
	res := verifyResult{Chain: chain, At: c.now().UTC(), Report: rep}
	c.verifyMu.Lock()
	c.verified[chain] = res
	c.verifyMu.Unlock()
	c.log.Info().Str("chain", receipts.ChainName(chain)).Bool("ok", rep.OK()).Int("records", rep.Records).Msg("receipts verified from the console")
	status := http.StatusOK
	if !rep.OK() {
		status = http.StatusConflict
	}
	v.Data = verifyData{Result: res}
	c.render(w, status, "verify", v)
}

// verifications are the last results, the whole store first.
func (c *Console) verifications() []verifyResult {
	c.verifyMu.Lock()
	defer c.verifyMu.Unlock()
	out := make([]verifyResult, 0, len(c.verified))
	for _, r := range c.verified {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b verifyResult) int { return strings.Compare(a.Chain, b.Chain) })
	return out
}

// verification is the latest result that covers chain: its own, or the
// whole store's when that is newer.
func (c *Console) verification(chain string) (verifyResult, bool) {
	c.verifyMu.Lock()
	defer c.verifyMu.Unlock()
	own, ok := c.verified[chain]
	if all, ok2 := c.verified[""]; ok2 && (!ok || all.At.After(own.At)) {
		return all, true
	}
	return own, ok
}

// exportReceipts sends a chain (or the store) as JSONL, exactly as stored:
// with the public key it verifies anywhere.
func (c *Console) exportReceipts(w http.ResponseWriter, r *http.Request, v *view) {
	if c.opts.ReceiptsDir == "" {
		c.fail(w, r, v, http.StatusNotFound, v.T("receipts-off"))
		return
	}
	chain := r.URL.Query().Get("chain")
	if chain == receipts.LegacyChain {
		chain = ""
	}
	path, ok := c.chainPath(chain)
	if !ok {
		c.fail(w, r, v, http.StatusNotFound, v.T("error-chain", "chain", clip(chain)))
		return
	}
	name := "talon-receipts"
	if chain != "" {
		name += "-" + chain
	}
	name += "-" + c.now().UTC().Format("20060102T150405Z") + ".jsonl"
	w.Header().Set("Content-Type", "application/jsonl; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	if err := receipts.Export(path, w); err != nil && !errors.Is(err, receipts.ErrDamaged) {
		c.log.Warn().Err(err).Msg("console export of receipts ended early")
	}
}

// publicKey sends the store's public key file, which an export verifies
// with.
func (c *Console) publicKey(w http.ResponseWriter, r *http.Request, v *view) {
	data, err := os.ReadFile(receipts.PublicKeyPath(c.opts.ReceiptsDir))
	if c.opts.ReceiptsDir == "" || err != nil {
		c.fail(w, r, v, http.StatusNotFound, v.T("error-no-key"))
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+receipts.PublicKeyFile+`"`)
	_, _ = w.Write(data)
}
