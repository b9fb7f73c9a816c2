// Package tool is the contract every source of tools implements: compiled-in
// adapters, WASM and subprocess plugins, operator command tools and MCP
// servers all hand the runtime a [Tool], described by a [Spec].
//
// The smallest tool:
//
//	type echo struct{}
//
//	func (echo) Spec() tool.Spec {
//		return tool.Spec{
//			Name:        "echo",
//			Input:       json.RawMessage(`{"type":"object"}`),
//			Tier:        tool.Low,
//			Attribution: tool.Attribution{Kind: tool.KindBuiltin, Alias: "echo"},
//		}
//	}
//
//	func (echo) Execute(ctx context.Context, args json.RawMessage) (tool.Result, error) {
//		return tool.Text(string(args)), nil
//	}
//
// A tool never decides whether it may run: the runtime validates arguments,
// assesses risk, applies policy and asks for approval before Execute is called.
package tool
