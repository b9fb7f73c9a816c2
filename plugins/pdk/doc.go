// Package pdk is what a Go WASM plugin for talon imports: it registers the
// plugin's tools, implements ABI v1's exports (see plugins/ABI.md), and
// wraps the host functions in typed helpers for config, secrets, logging,
// HTTP and files.
//
// A plugin registers its tools from init (a WASM reactor has no main) and
// is built with the standard toolchain:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o tool.wasm .
//
// The smallest plugin:
//
//	func init() {
//		pdk.Register(pdk.Tool{
//			Name:        "greet",
//			Description: "Say hello to someone.",
//			InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`),
//			Tier:        pdk.Low,
//			Handler: pdk.Handle(func(in struct{ Name string }) (pdk.Result, error) {
//				return pdk.Text("hello, " + in.Name), nil
//			}),
//		})
//	}
//
//	func main() {}
//
// Outside wasip1 (go test on the author's machine) the same handlers run
// natively: [Invoke] calls a tool the way the host would, and the host
// functions are served by a [Fake] installed with UseFake.
//
// The package is the module github.com/talonhq/talon/plugins/pdk, with no
// dependencies, tagged with talon's releases (plugins/pdk/v1.2.3). `talon
// plugins new` writes a copy of it into the project it creates, so a
// plugin builds without a network.
package pdk
