//go:build !talon_no_plugins_process

package standard

import _ "github.com/talonhq/talon/plugins/process"
