// Package sdk is what a subprocess tool plugin is written with. A plugin
// is a Go program whose main hands its tools to [Serve]:
//
//	func main() {
//		sdk.Serve(sdk.Tool{
//			Name:        "greet",
//			Description: "Greets someone by name.",
//			Input:       json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
//			Tier:        "low",
//			Run: func(ctx context.Context, c sdk.Call) (sdk.Result, error) {
//				var in struct{ Name string }
//				if err := c.Bind(&in); err != nil {
//					return sdk.Result{}, err
//				}
//				return sdk.Text("hello, " + in.Name), nil
//			},
//		})
//	}
//
// Serve performs the go-plugin handshake, serves the gRPC protocol of
// plugins/proto, cancels a call's context when talon cancels it or its
// deadline passes, turns a panic in a tool into a failed result, writes
// structured logs (log/slog, JSON) to stderr where talon re-logs them with
// the plugin's attribution, and exits when talon is gone.
//
// # Notes
//
// A plugin must not write to stdout before [Serve] runs: the first line of
// stdout is the handshake. After Serve starts, what the plugin prints to
// stdout or stderr is forwarded to talon's log.
//
// The package is the module github.com/talonhq/talon/plugins/sdk, which
// needs github.com/talonhq/talon/plugins/proto, go-plugin and gRPC and
// nothing else of talon; both are tagged with talon's releases
// (plugins/sdk/v1.2.3). `talon plugins new --kind process` writes copies of
// them into the project it creates.
package sdk
