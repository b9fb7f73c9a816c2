package console

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/history"
)

// recentCalls is how many of a session's calls an approval shows.
const recentCalls = 5

// card is one waiting call as the Approvals page shows it.
type card struct {
	P       approval.Pending
	Summary string
	Recent  []history.Record
	// Refused says why answers are not taken here; "" when they are.
	Refused string
	// Always and Permanently say which answers beyond "once" are offered.
	Always      bool
	Permanently bool
	V           *view
}

func (c *Console) card(v *view, p approval.Pending, refused string) card {
	req := p.Request
	k := card{P: p, Summary: summary(req), Refused: refused, V: v,
		Always: !req.AlwaysAsk, Permanently: req.Saveable && !req.AlwaysAsk}
	if req.SessionID != "" {
		k.Recent = c.rt.History().History(req.SessionID, recentCalls)
		for i, j := 0, len(k.Recent)-1; i < j; i, j = i+1, j-1 {
			k.Recent[i], k.Recent[j] = k.Recent[j], k.Recent[i]
		}
	}
	return k
}

// summary is one line saying what the call would do: the plan's summary,
// else its commands, else the redacted arguments.
func summary(req approval.Request) string {
	if req.Plan != nil {
		if req.Plan.Summary != "" {
			return req.Plan.Summary
		}
		var cmds []string
		for _, cmd := range req.Plan.Commands {
			cmds = append(cmds, strings.Join(cmd.Argv, " "))
		}
		if len(cmds) > 0 {
			return strings.Join(cmds, " && ")
		}
	}
	return req.Args
}

type approvalsData struct {
	Cards   []card
	Refused string
	Flash   string
}

func (c *Console) approvalsPage(w http.ResponseWriter, r *http.Request, v *view) {
	v.Title = v.T("approvals-title")
	v.Nav = "approvals"
	refused := c.answersRefused(r)
	d := approvalsData{Refused: refused}
	if c.opts.Queue != nil {
		for _, p := range c.opts.Queue.List() {
			d.Cards = append(d.Cards, c.card(v, p, refused))
		}
	}
	q := r.URL.Query()
	if id := q.Get("answered"); id != "" {
		if o, ok := c.gone.get(id); ok && o.Kind == approval.Decided {
			d.Flash = c.leftText(v, &approval.Event{Kind: o.Kind, Answer: o.Answer, Pending: approval.Pending{Request: approval.Request{Tool: o.Tool}}})
		}
	}
	v.Data = d
	c.render(w, http.StatusOK, "approvals", v)
}

// validApprovalID accepts what approval ids look like: 12 characters of
// a-z and 2-7, in either case.
func validApprovalID(id string) bool {
	if len(id) != 12 {
		return false
	}
	for _, r := range strings.ToLower(id) {
		if !(r >= 'a' && r <= 'z' || r >= '2' && r <= '7') {
			return false
		}
	}
	return true
}

// answer decides a waiting call through the queue, as `talon approvals`
// does.
func (c *Console) answer(w http.ResponseWriter, r *http.Request, v *view) {
	if !c.stateChange(w, r, v) {
		return
	}
	id := strings.ToLower(r.PathValue("id"))
	if !validApprovalID(id) {
		c.fail(w, r, v, http.StatusBadRequest, v.T("error-approval-id", "id", clip(id)))
		return
	}
	if why := c.answersRefused(r); why != "" {
		c.log.Warn().Str("approval", id).Str("reason", why).Msg("console refused an answer: tool processes could reach this listener and no token is set")
		c.fail(w, r, v, http.StatusForbidden, v.T("error-answers-off", "reason", why))
		return
	}
	var p *approval.Pending
	if c.opts.Queue != nil {
		for _, q := range c.opts.Queue.List() {
			if q.ID == id {
				p = &q
				break
			}
		}
	}
	if p == nil {
		c.notPending(w, r, v, id)
		return
	}
	var ans approval.Answer
	form := r.PostForm.Get("answer")
	switch form {
	case "yes":
		ans = approval.Yes
	case "no":
		ans = approval.No
	case "always":
		if p.Request.AlwaysAsk {
			c.fail(w, r, v, http.StatusBadRequest, v.T("error-always-ask", "tool", p.Request.Tool))
			return
		}
		ans = approval.Always
	case "permanently":
		// The runtime keeps the rule, as for every other Permanent answer.
		if !p.Request.Saveable || p.Request.AlwaysAsk {
			c.fail(w, r, v, http.StatusBadRequest, v.T("error-permanently"))
			return
		}
		ans = approval.Permanent
	default:
		c.fail(w, r, v, http.StatusBadRequest, v.T("error-answer", "answer", clip(form)))
		return
	}
	if err := c.opts.Queue.Decide(id, ans); err != nil {
		if errors.Is(err, approval.ErrNotPending) {
			c.notPending(w, r, v, id)
			return
		}
		c.fail(w, r, v, http.StatusInternalServerError, err.Error())
		return
	}
	c.log.Info().Str("approval", id).Str("tool", p.Request.Tool).Str("answer", ans.String()).Str("remote", remoteHost(r)).
		Msg("approval decided through the console")
	http.Redirect(w, r, base+"/approvals?"+url.Values{"answered": {id}}.Encode(), http.StatusSeeOther)
}

// notPending explains an answer to a call that is not waiting: answered
// already, gone unanswered, or never there.
func (c *Console) notPending(w http.ResponseWriter, r *http.Request, v *view, id string) {
	o, ok := c.gone.get(id)
	switch {
	case !ok:
		c.fail(w, r, v, http.StatusNotFound, v.T("error-approval-unknown", "id", id))
	case o.Kind == approval.Withdrawn:
		c.fail(w, r, v, http.StatusConflict, v.T("error-approval-withdrawn", "id", id, "tool", o.Tool, "time", v.Time(o.At)))
	default:
		c.fail(w, r, v, http.StatusConflict, v.T("error-approval-answered", "id", id, "tool", o.Tool, "answer", o.Answer.String(), "time", v.Time(o.At)))
	}
}

// clip keeps what a refusal repeats of the request short.
func clip(s string) string {
	if r := []rune(s); len(r) > 64 {
		return string(r[:64]) + "…"
	}
	return s
}
