package console

import (
	"net/http"
	"slices"
	"strings"

	"github.com/talonhq/talon/history"
)

// callsShown bounds the Calls page's table.
const callsShown = 200

// callFilter is the Calls page's selection; empty fields select all.
type callFilter struct {
	Session  string
	Tool     string
	Decision string
}

func callFilterOf(r *http.Request) callFilter {
	q := r.URL.Query()
	f := callFilter{Session: q.Get("session"), Tool: strings.TrimSpace(q.Get("tool")), Decision: q.Get("decision")}
	if !slices.Contains([]string{"allow", "ask", "deny"}, f.Decision) {
		f.Decision = ""
	}
	return f
}

func (f callFilter) match(r history.Record) bool {
	return (f.Session == "" || r.Session == f.Session) &&
		(f.Tool == "" || r.Tool == f.Tool) &&
		(f.Decision == "" || r.Decision == f.Decision)
}

// callRow is one call as a table row.
type callRow struct {
	R history.Record
	V *view
}

type callsData struct {
	Filter   callFilter
	Sessions []history.Summary
	Rows     []callRow
	Stream   string
}

func (c *Console) callsPage(w http.ResponseWriter, r *http.Request, v *view) {
	v.Title = v.T("calls-title")
	v.Nav = "calls"
	f := callFilterOf(r)
	log := c.rt.History()
	d := callsData{Filter: f, Sessions: log.Sessions()}
	var recs []history.Record
	for _, s := range d.Sessions {
		if f.Session != "" && s.Session != f.Session {
			continue
		}
		for _, rec := range log.History(s.Session, 0) {
			if f.match(rec) {
				recs = append(recs, rec)
			}
		}
	}
	slices.SortStableFunc(recs, func(a, b history.Record) int { return b.Time.Compare(a.Time) })
	if len(recs) > callsShown {
		recs = recs[:callsShown]
	}
	for _, rec := range recs {
		d.Rows = append(d.Rows, callRow{R: rec, V: v})
	}
	v.Data = d
	c.render(w, http.StatusOK, "calls", v)
}

// Outcome renders a call's outcome in the page's language.
func (v *view) Outcome(o string) string {
	switch o {
	case history.OutcomeSuccess, history.OutcomeFailed, history.OutcomeDenied, history.OutcomeCancelled, history.OutcomeRejected:
		return v.T("outcome-" + o)
	}
	return o
}

// Decision renders a policy decision in the page's language.
func (v *view) Decision(d string) string {
	switch d {
	case "allow", "ask", "deny":
		return v.T("decision-" + d)
	}
	return "—"
}
