package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/catalog"
	"github.com/talonhq/talon/history"
	"github.com/talonhq/talon/receipts"
	"github.com/talonhq/talon/risk"
	"github.com/talonhq/talon/sandbox"
	"github.com/talonhq/talon/tool"
)

// Explanation is what a call would do, computed without running it.
type Explanation struct {
	Tool        string     `json:"tool"`
	Attribution string     `json:"attribution"`
	Profile     string     `json:"profile"`
	Channel     string     `json:"channel"`
	Tier        tool.Tier  `json:"tier"`
	Reasons     []string   `json:"reasons"`
	Plan        *tool.Plan `json:"plan,omitempty"`
	// Sandbox says how the plan's processes are confined, e.g.
	// "landlock-v7 fs+net+scope"; empty for calls that start none.
	Sandbox    string          `json:"sandbox,omitempty"`
	Decision   risk.Decision   `json:"decision"`
	Why        string          `json:"why"`
	Assessment tool.Assessment `json:"-"`
	AlwaysAsk  bool            `json:"-"`

	// Rule names the saved approval rule that allowed the call.
	Rule string `json:"rule,omitempty"`
}

// prepared is a call that passed lookup, argument and schema checks.
type prepared struct {
	call  tool.Call
	entry *catalog.Entry
	impl  tool.Tool // the entry's tool, or its variant for the caller's profile
	args  json.RawMessage
	ex    Explanation
	log   zerolog.Logger
	// receipts and showToken come from [receipts] of the snapshot.
	receipts, showToken bool
	// allowedBy says how the call was allowed, for its receipt.
	allowedBy string
}

// Explain runs every step of the pipeline up to the policy decision and
// stops: nothing executes and nobody is asked. Hard errors are returned as
// errors; a schema failure is returned as a failed result.
func (r *Runtime) Explain(ctx context.Context, c tool.Call) (Explanation, *tool.Result, error) {
	p, res, err := r.prepare(ctx, r.state.Load(), c)
	if err != nil || res != nil {
		return Explanation{}, res, err
	}
	return p.ex, nil, nil
}

func (r *Runtime) prepare(ctx context.Context, st *state, c tool.Call) (*prepared, *tool.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	c.Channel = channelOf(c.Channel)
	if c.Profile == "" {
		c.Profile = risk.DefaultProfile
	}
	entry, ok := st.catalog.Lookup(c.Name)
	if !ok {
		return nil, nil, unknownTool(st.catalog, c.Name)
	}
	spec := entry.Spec
	log := r.log
	if log.GetLevel() != zerolog.Disabled {
		log = log.With().Str("tool", spec.Name).Str("attribution", spec.Attribution.String()).
			Str("channel", c.Channel).Str("profile", c.Profile).Str("session", c.SessionID).Logger()
	}

	prof, err := st.policy.Profile(c.Profile)
	if err != nil {
		return nil, nil, err
	}
	args, err := tool.NormalizeArgs(c.Args)
	if err != nil {
		return nil, nil, fmt.Errorf("call %s: %w", spec.Name, err)
	}
	schema, err := entry.Schema()
	if err != nil {
		res := failed(spec.Name, "tool %s has a broken input schema and cannot be called: %v", spec.Name, err)
		return nil, &res, nil
	}
	if err := schema.Validate(args); err != nil {
		res := failed(spec.Name, "%s: %v; fix the arguments and call again", spec.Name, err)
		log.Info().Str("outcome", "invalid_arguments").Msg(res.Error)
		return nil, &res, nil
	}
	withReceipts := r.opts.Receipts != nil && st.cfg.Receipts.Enabled()
	if withReceipts {
		// A receipt hashes the canonical form of the arguments; arguments
		// that have none (numbers beyond IEEE 754, lone surrogates) are
		// refused before anything runs rather than after.
		if _, err := receipts.CanonicalArgs(args); err != nil {
			res := failed(spec.Name, "%s: arguments cannot be recorded in a receipt: %v; send plain JSON numbers and valid Unicode", spec.Name, err)
			return nil, &res, nil
		}
	}

	impl, err := r.toolFor(entry, prof)
	if err != nil {
		res := failed(spec.Name, "%s cannot be prepared for profile %s: %v", spec.Name, prof.Name, err)
		return nil, &res, nil
	}
	a := tool.Assessment{Tier: spec.Tier}
	if as, ok := impl.(tool.Assessor); ok {
		got, err := as.Assess(args)
		if err != nil {
			res := failed(spec.Name, "%s: %v", spec.Name, err)
			return nil, &res, nil
		}
		a = got
	}
	a.Tier = tool.MaxTier(a.Tier, spec.Tier)
	v := prof.Decide(risk.Input{Tool: spec.Name, Channel: c.Channel, Assessment: a, CallerAllowlist: c.CallerAllowlist, Saved: r.rules})
	reasons := a.Reasons
	if reasons == nil {
		reasons = []string{}
	}
	return &prepared{
		call: c, entry: entry, impl: impl, args: args, log: log,
		receipts: withReceipts, showToken: st.cfg.Receipts.ShowInResponse,
		ex: Explanation{
			Tool: spec.Name, Attribution: spec.Attribution.String(), Profile: prof.Name, Channel: c.Channel,
			Tier: a.Tier, Reasons: reasons, Plan: a.Plan, Sandbox: sandboxOf(a.Plan), Decision: v.Decision, Why: v.Why,
			Rule: v.Saved, Assessment: a, AlwaysAsk: v.AlwaysAsk,
		},
	}, nil, nil
}

func failed(name, format string, args ...any) tool.Result {
	return tool.Normalize(name, tool.Failure(format, args...), nil)
}

// denied is the result of a refused call. Its text is a sentence for the
// model, like "Denied by user.": a policy's lowercase reason gains a
// capital.
func denied(msg string) tool.Result {
	if r, n := utf8.DecodeRuneInString(msg); n > 0 && unicode.IsLower(r) {
		msg = string(unicode.ToUpper(r)) + msg[n:]
	}
	return tool.Result{Error: msg, Denied: true}
}

// Call runs one call through the whole pipeline.
//
// # Errors
//
// Call returns an error only for hard errors, which fail the whole request:
// an unknown tool, arguments that are not a JSON object, an unknown profile,
// or cancellation by the caller. Everything else — schema failures, policy
// denials, tool failures — is a failed [tool.Result] for the model to read.
func (r *Runtime) Call(ctx context.Context, c tool.Call) (tool.Result, error) {
	start := time.Now()
	ctx = r.observe(ctx, c.Name)
	st := r.state.Load()
	p, early, err := r.prepare(ctx, st, c)
	if err != nil {
		r.observeError(ctx, c, start)
		return tool.Result{}, err
	}
	if early != nil {
		r.record(ctx, c, p, *early, nil, start)
		return *early, nil
	}
	actx, allowed, res := r.authorize(ctx, st, p)
	if !allowed {
		r.record(ctx, c, p, res, ctx.Err(), start)
		return res, ctx.Err()
	}
	res, err = r.execute(actx, p)
	r.record(ctx, c, p, res, err, start)
	return res, err
}

// record adds a finished call to the session history and tells the
// observer. Hard errors before the tool was found are not recorded:
// there is no tool to speak of.
func (r *Runtime) record(ctx context.Context, c tool.Call, p *prepared, res tool.Result, err error, start time.Time) {
	obs := r.observer()
	if c.SessionID == "" && obs == nil {
		return
	}
	rec := history.Record{
		Time: start, Session: c.SessionID, Tool: c.Name, Channel: channelOf(c.Channel), Profile: c.Profile,
		Duration: time.Since(start),
	}
	if p != nil {
		rec.Attribution, rec.Tier, rec.Decision, rec.Profile = p.ex.Attribution, p.ex.Tier.String(), p.ex.Decision.String(), p.ex.Profile
	}
	switch {
	case err != nil:
		rec.Outcome = history.OutcomeCancelled
	case res.Success:
		rec.Outcome = history.OutcomeSuccess
		if res.Receipt != nil {
			rec.ReceiptID = res.Receipt.ID
		}
	case res.Denied:
		rec.Outcome = history.OutcomeDenied
	case res.Pending != "":
		rec.Outcome = outcomePending
	case p == nil:
		rec.Outcome = history.OutcomeRejected
	default:
		rec.Outcome = history.OutcomeFailed
	}
	if obs != nil {
		obs.CallEnded(ctx, rec)
	}
	if c.SessionID != "" {
		r.history.Add(rec)
	}
}

// authorize turns the policy verdict into run or don't run, asking a person
// where the verdict is Ask.
func (r *Runtime) authorize(ctx context.Context, st *state, p *prepared) (context.Context, bool, tool.Result) {
	ex := p.ex
	switch ex.Decision {
	case risk.Allow:
		decisionEvent(p, "allow").Msg(ex.Why)
		p.allowedBy = receipts.AllowedAuto
		if ex.Rule != "" {
			// A saved approval binds to its plan like a person's answer.
			p.allowedBy = receipts.AllowedAlways
			return tool.WithApprovedPlan(ctx, ex.Plan), true, tool.Result{}
		}
		return ctx, true, tool.Result{}
	case risk.Ask:
	default:
		decisionEvent(p, "deny").Msg(ex.Why)
		return ctx, false, denied(ex.Why)
	}

	key := risk.ApprovalKey(ex.Tool, ex.Assessment)
	if !ex.AlwaysAsk && r.alwaysApproved(p.call.SessionID, key) {
		decisionEvent(p, "allow").Str("approved", "always").Msg("approved earlier in this session")
		p.allowedBy = receipts.AllowedAlways
		return tool.WithApprovedPlan(ctx, ex.Plan), true, tool.Result{}
	}
	timeout := r.opts.ApprovalTimeout
	if timeout <= 0 {
		timeout = st.cfg.Approvals.Timeout()
	}
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	approver := r.approver
	if p.call.Channel == tool.ChannelCron {
		// A scheduled call has nobody behind it: never queue or elicit.
		approver = approval.NonInteractive{}
	}
	saved, saveErr := approval.RuleFromPlan(ex.Tool, ex.Profile, ex.Plan)
	req := approval.Request{
		Tool: ex.Tool, Attribution: ex.Attribution, Tier: ex.Tier, Reasons: ex.Reasons, Plan: ex.Plan,
		Args: approval.Redact(p.args), Channel: p.call.Channel, Profile: ex.Profile, SessionID: p.call.SessionID,
		AlwaysAsk: ex.AlwaysAsk, Sandbox: ex.Sandbox, Delegation: DelegationPath(ctx),
		Saveable: saveErr == nil && !ex.AlwaysAsk && r.rules.Path() != "",
	}
	if d, ok := approver.(approval.Deferrer); ok && !st.cfg.Approvals.Wait() {
		return ctx, false, r.deferCall(ctx, p, d, req, key, saved, saveErr)
	}
	actx, waited := r.observeApproval(actx, req)
	ans, err := approver.Approve(actx, req)
	waited(ans, err)
	if ctx.Err() != nil {
		return ctx, false, tool.Result{}
	}
	ev := decisionEvent(p, "ask")
	switch {
	case err != nil || errors.Is(actx.Err(), context.DeadlineExceeded):
		ev.Str("answer", "none").Msg("no approver available; denied")
		return ctx, false, denied(approval.DeniedNoApprover)
	case ans == approval.Permanent && saveErr == nil && !ex.AlwaysAsk:
		r.rememberAlways(p.call.SessionID, key)
		saved.By = "approved on channel " + p.call.Channel
		if rule, err := r.rules.Add(saved); err != nil {
			ev.Str("answer", "permanent").Err(err).Msg("approved by user; the rule could not be saved, so it holds for this session")
		} else {
			ev.Str("answer", "permanent").Str("rule", rule.ID).Msg("approved by user and saved as a rule")
		}
		p.allowedBy = receipts.AllowedByUser
	case ans == approval.Always || ans == approval.Permanent:
		if !ex.AlwaysAsk {
			r.rememberAlways(p.call.SessionID, key)
		}
		ev.Str("answer", "always").Msg("approved by user for this session")
		p.allowedBy = receipts.AllowedByUser
	case ans == approval.Yes:
		ev.Str("answer", "yes").Msg("approved by user")
		p.allowedBy = receipts.AllowedByUser
	default:
		ev.Str("answer", "no").Msg("denied by user")
		return ctx, false, denied(approval.DeniedByUser)
	}
	return tool.WithApprovedPlan(ctx, ex.Plan), true, tool.Result{}
}

// decisionEvent starts the log line of a decision; the redacted argument
// summary is computed only when the line will be written.
func decisionEvent(p *prepared, decision string) *zerolog.Event {
	ev := p.log.Info()
	if ev.Enabled() {
		ev = ev.Str("decision", decision).Str("tier", p.ex.Tier.String()).Str("args", approval.Redact(p.args))
	}
	return ev
}

func (r *Runtime) alwaysApproved(session, key string) bool {
	if session == "" {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.always[session][key]
}

func (r *Runtime) rememberAlways(session, key string) {
	if session == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.always[session] == nil {
		r.always[session] = map[string]bool{}
	}
	r.always[session][key] = true
}

// execute runs an authorized call.
func (r *Runtime) execute(ctx context.Context, p *prepared) (tool.Result, error) {
	start := time.Now()
	fctx, f := r.enter(ctx, p)
	res, err := safeExecute(tool.WithCall(fctx, p.call), p.impl, p.args)
	if cerr := ctx.Err(); cerr != nil {
		p.log.Info().Str("outcome", "cancelled").Dur("duration", time.Since(start)).Msg("call cancelled by the caller")
		return tool.Result{}, cerr
	}
	res = tool.Normalize(p.entry.Spec.Name, res, err)
	res.Receipt = nil // only the runtime issues receipts
	took := time.Since(start)
	ev := p.log.Info().Dur("duration", took).Bool("success", res.Success)
	if !res.Success {
		ev.Str("error", res.Error).Msg("call finished")
		return res, nil
	}
	if rec, err := r.issue(ctx, p, res, start, took, f); err != nil {
		ev.Str("receipt_error", err.Error()).Msg("call finished; its receipt could not be recorded")
	} else if rec != nil {
		f.parent.addInner(rec.ID)
		res.Receipt = rec
		if p.showToken {
			res.Output.Text += "\n" + rec.Token()
		}
		ev.Uint64("receipt_seq", rec.Seq).Str("receipt_id", rec.ID).Msg("call finished")
	} else {
		ev.Msg("call finished")
	}
	return res, nil
}

// issue records the receipt of a successful execution. It is the only place
// receipts are issued, and execute calls it only for a successful result:
// denied, failed, timed-out, cancelled and schema-rejected calls never get
// here.
func (r *Runtime) issue(ctx context.Context, p *prepared, res tool.Result, start time.Time, took time.Duration, f *frame) (*receipts.Receipt, error) {
	if r.opts.Receipts == nil || !p.receipts {
		return nil, nil
	}
	return r.opts.Receipts.Issue(context.WithoutCancel(ctx), receipts.Entry{
		Tool:        p.entry.Spec.Name,
		Attribution: p.entry.Spec.Attribution.String(),
		Channel:     p.call.Channel,
		Profile:     p.ex.Profile,
		Session:     p.call.SessionID,
		Tier:        p.ex.Tier.String(),
		AllowedBy:   p.allowedBy,
		Args:        p.args,
		Result:      res.Output.Text,
		Duration:    took,
		Time:        start,
		Delegation:  f.receiptDelegation(),
	})
}

// safeExecute turns a panicking tool into a failed result.
func safeExecute(ctx context.Context, t tool.Tool, args json.RawMessage) (res tool.Result, err error) {
	defer func() {
		if v := recover(); v != nil {
			res, err = tool.Result{}, fmt.Errorf("crashed: %v", v)
		}
	}()
	return t.Execute(ctx, args)
}

// toolFor returns the entry's tool as the profile sees it.
func (r *Runtime) toolFor(e *catalog.Entry, prof *risk.Profile) (tool.Tool, error) {
	return e.ForProfile(tool.ProfileSettings{
		Name:                prof.Name,
		AllowedCommands:     prof.AllowedCommands,
		ShellEnvPassthrough: prof.ShellEnvPassthrough,
		ForbiddenPaths:      prof.ForbiddenPaths,
	})
}

// sandboxOf describes the confinement of a plan that starts processes.
func sandboxOf(p *tool.Plan) string {
	if p == nil || len(p.Commands) == 0 {
		return ""
	}
	return sandbox.Current().Summary()
}
