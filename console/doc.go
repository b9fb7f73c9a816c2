// Package console is the operator's web console that talon serve mounts
// at /console on the listener of its MCP endpoint: the pending approvals,
// answered with one click, the live feed of calls, the signed receipts
// with their verification, the catalog, a policy explanation form, the
// plugins and the sandbox.
//
// Pages are rendered on the server with html/template from embedded
// templates; a stylesheet and a short script of talon's own are embedded
// too, and the page loads nothing from anywhere else. Without the script
// every page still works as plain links and forms; with it, approvals and
// calls arrive live over server-sent events.
//
// The smallest use, next to an MCP handler:
//
//	access := server.NewAccess(httpOpts)
//	c, err := console.New(console.Options{Runtime: rt, Queue: queue, Access: access})
//	if err != nil {
//		return err
//	}
//	defer c.Close()
//	mux.Handle(console.Path, c)
//
// # Access
//
// Every request passes the MCP endpoint's own rules first
// ([server.Access]): loopback or configured origins only, a loopback Host on
// a loopback listener, and the bearer token when one is set. A browser
// enters the token once on a login page; the console then keeps a value
// derived from it, valid for the life of this server process, in an
// HttpOnly, SameSite=Strict cookie. Every state change (an answer, a
// verification, a sandbox check, a login) is a POST that must carry the
// page's CSRF token, come from the console's own origin and not from
// another site. Answers go to the same [approval.Queue] as `talon
// approvals`. They are refused while tool processes could connect to the
// listener themselves and no token is set (see [Options.Reach]), because
// approvals must come from people.
//
// # Languages
//
// The console's text comes from the console-* messages of the locales
// bundle, in the language the browser asks for (Accept-Language) unless
// the operator picked another with the language switch.
package console
