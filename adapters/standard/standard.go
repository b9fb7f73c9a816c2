// Package standard compiles talon's built-in adapters in. The command imports
// it for its side effects; each adapter registers itself from init. Adapters
// that belong to an optional build feature are imported from a file guarded
// by that feature's build tag.
package standard

import (
	_ "github.com/talonhq/talon/adapters/calc"
	_ "github.com/talonhq/talon/adapters/cron"
	_ "github.com/talonhq/talon/adapters/fsx"
	_ "github.com/talonhq/talon/adapters/git"
	_ "github.com/talonhq/talon/adapters/memory"
	_ "github.com/talonhq/talon/adapters/patch"
	_ "github.com/talonhq/talon/adapters/process"
	_ "github.com/talonhq/talon/adapters/sessions"
	_ "github.com/talonhq/talon/adapters/shell"
	_ "github.com/talonhq/talon/adapters/toolsearch"
	_ "github.com/talonhq/talon/adapters/web"
)
