//go:build talon_tools_external

package standard

import (
	_ "github.com/talonhq/talon/adapters/search"
	_ "github.com/talonhq/talon/adapters/weather"
)
