package web

import (
	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/netguard"
)

// redactor hides every configured secret that can be read now, not only
// those the call sends: each value whole, and each environment variable's
// value inserted into it, in every form netguard.Redactor knows (literal,
// reversed, hex, base64, percent- and JSON-escaped). A secret that cannot
// be read (its variable is not set) cannot be in the response either.
func (t *HTTPRequest) redactor() *netguard.Redactor {
	var secrets []netguard.Secret
	for _, name := range sortedKeys(t.secrets) {
		v, parts, err := config.ExpandVars(t.secrets[name], t.lookupEnv)
		if err != nil {
			continue
		}
		secrets = append(secrets, netguard.Secret{Name: name, Value: v})
		for _, p := range parts {
			secrets = append(secrets, netguard.Secret{Name: name, Value: p})
		}
	}
	return netguard.NewRedactor(secrets...)
}
