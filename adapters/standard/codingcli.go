//go:build talon_tools_coding_cli

package standard

import _ "github.com/talonhq/talon/adapters/codingcli"
