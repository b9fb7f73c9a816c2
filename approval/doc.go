// Package approval asks a person whether a call may run.
//
// The runtime consults an [Approver] only when policy says Ask. Every
// approver sees the same [Request]: the tool, its attribution, the tier, the
// reasons and the exact plan that will run. An answer binds to that plan.
//
// Approvers fail closed: an approver that cannot reach a person returns
// [ErrNoApprover], and the runtime denies the call with [DeniedNoApprover].
//
//	a := approval.Terminal{In: os.Stdin, Out: os.Stderr}
//	ans, err := a.Approve(ctx, req)
//
// A [Permanent] answer is kept as a [SavedRule] in [Rules], the
// approvals file in talon's configuration directory ([DefaultRulesPath]):
// an exact plan that a later call matches without asking, never for a
// command that runs inline code. A [Deferrer] ([Queue] is one) parks a
// request without its caller waiting, for [approvals] wait = false.
package approval
