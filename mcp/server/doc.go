// Package server exposes a runtime's catalog over the Model Context
// Protocol: the server behind `talon serve`.
//
// Each MCP session is a caller on channel [tool.ChannelMCP] with one risk
// profile. tools/list is the runtime's view for that profile, and every
// tools/call goes through [runtime.Runtime.Call], so policy, approvals,
// limits and receipts apply exactly as they do on the command line. Calls
// that need a person are routed by [Approver]: to the client through MCP
// elicitation when it supports that, else to an [approval.Queue] that the
// operator answers with `talon approvals` over a local control socket (see
// [ListenControl]).
//
// The smallest use, serving stdio:
//
//	approver := &server.Approver{Queue: approval.NewQueue(approval.QueueOptions{})}
//	rt, _ := runtime.New(runtime.Options{Approver: approver})
//	srv, _ := server.New(server.Options{Runtime: rt})
//	err := srv.ServeStdio(ctx, os.Stdin, os.Stdout)
//
// or streamable HTTP, guarded by an Origin check and an optional bearer
// token:
//
//	http.ListenAndServe("127.0.0.1:7357", srv.HTTPHandler(server.HTTPOptions{}))
package server
