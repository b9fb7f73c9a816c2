//go:build talon_testtools

package standard

import _ "github.com/talonhq/talon/adapters/echo"
