//go:build talon_tools_saas

package standard

import _ "github.com/talonhq/talon/adapters/github"
