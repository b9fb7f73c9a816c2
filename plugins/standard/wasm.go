//go:build !talon_no_plugins_wasm

package standard

import _ "github.com/talonhq/talon/plugins/wasm"
