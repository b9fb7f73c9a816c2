package server

import "net/http"

// Protect serves next under the rules of the MCP endpoint: the Origin and
// Host checks of [Access.Guard], then the bearer token, refused with 401
// and a WWW-Authenticate challenge exactly as [Server.HTTPHandler] refuses
// it. talon serve's /metrics sits behind it.
func (a *Access) Protect(next http.Handler) http.Handler {
	return a.Guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !a.Bearer(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="talon"`)
			http.Error(w, "missing or wrong bearer token: send Authorization: Bearer <[serve] token>", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	}))
}
