//go:build !talon_no_plugins_wasm

package standard

// The Extism host runs on wazero like the WASM host, so the plugins-wasm
// feature switches both.
import _ "github.com/talonhq/talon/plugins/extism"
