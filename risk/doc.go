// Package risk decides whether a call may run: it turns a tool's
// [tool.Assessment] and the caller's risk profile into Allow, Ask or Deny,
// with the reason.
//
// The decision table (SPEC §3):
//
//	tier    read_only  supervised                               full
//	low     allow      allow                                    allow
//	medium  deny       ask (allow if approval is not required   allow
//	                   for medium risk or the tool is auto_approve)
//	high    deny       deny when block_high_risk_commands,      allow
//	                   ask if every command was allowlisted
//
// Before the table: deny_all_tools, allowed_tools, excluded_tools, a
// caller's own allowlist, forbidden_paths and the tool's own analysis may
// deny. After it: always_ask turns every allow into ask, under every level.
//
//	pol, _ := risk.NewPolicy(cfg)
//	prof, _ := pol.Profile("default")
//	v := prof.Decide(risk.Input{Tool: "file_write", Channel: tool.ChannelCLI, Assessment: a})
package risk
