package runtime

import (
	"context"
	"errors"
	"time"

	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/history"
	"github.com/talonhq/talon/tool"
)

// Observer is told about every call a Runtime runs, for telemetry (the
// telemetry package makes spans and metrics of it). Its methods run on
// the call's goroutine, in its path: they must be quick and must never
// wait for the network. A nil Observer costs nothing.
type Observer interface {
	// CallStarted is called as a call enters the pipeline. The context
	// it returns carries the call from there on, to its approval wait,
	// its tool and the tools that tool calls.
	CallStarted(ctx context.Context, name string) context.Context
	// CallEnded is called once for each call CallStarted saw, with its
	// context, when the call is over: the record is what the session
	// history keeps (tool, attribution, tier, decision, outcome,
	// duration, profile, channel, session, receipt id), never arguments
	// or results. A call refused before its tool was found ends with the
	// outcome [OutcomeError].
	CallEnded(ctx context.Context, rec history.Record)
	// ApprovalStarted is called when a call starts waiting for a person.
	// The wait runs on the context it returns; done is called once when
	// the wait is over, with the answer (yes, no, always, permanent, or
	// none when nobody answered).
	ApprovalStarted(ctx context.Context, req approval.Request) (actx context.Context, done func(answer string))
}

// OutcomeError is the outcome an [Observer] sees for a call that failed
// as a whole before its tool ran: an unknown tool, arguments that are not
// an object, an unknown profile, or cancellation.
const OutcomeError = "error"

// SetObserver makes o the observer of the calls that start from now on
// (nil: none), in place of [Options.Observer]: for a caller that builds
// its observer after the runtime.
func (r *Runtime) SetObserver(o Observer) {
	if o == nil {
		r.obs.Store(nil)
		return
	}
	r.obs.Store(&o)
}

// observer returns the observer, or nil.
func (r *Runtime) observer() Observer {
	if p := r.obs.Load(); p != nil {
		return *p
	}
	return nil
}

// observe starts a call's observation.
func (r *Runtime) observe(ctx context.Context, name string) context.Context {
	if o := r.observer(); o != nil {
		return o.CallStarted(ctx, name)
	}
	return ctx
}

// observeError ends the observation of a call that failed as a whole.
func (r *Runtime) observeError(ctx context.Context, c tool.Call, start time.Time) {
	if o := r.observer(); o != nil {
		o.CallEnded(ctx, history.Record{Time: start, Session: c.SessionID, Tool: c.Name, Channel: channelOf(c.Channel),
			Profile: c.Profile, Duration: time.Since(start), Outcome: OutcomeError})
	}
}

// observeApproval starts the observation of an approval wait.
func (r *Runtime) observeApproval(ctx context.Context, req approval.Request) (context.Context, func(approval.Answer, error)) {
	o := r.observer()
	if o == nil {
		return ctx, func(approval.Answer, error) {}
	}
	actx, done := o.ApprovalStarted(ctx, req)
	return actx, func(ans approval.Answer, err error) {
		if err != nil || errors.Is(actx.Err(), context.DeadlineExceeded) {
			done("none")
			return
		}
		done(ans.String())
	}
}
