// Package search provides web_search, which asks a search service for
// pages matching a query and returns their titles, URLs and snippets.
//
// The operator picks exactly one provider in [tools.web_search]:
// "searxng" (a SearXNG instance, usually self-hosted, through its JSON
// API), "brave" (the Brave Search API, with a subscription token) or
// "anysearch" (the AnySearch API; a bearer token is sent only when a key is
// configured, and no Authorization header at all otherwise). There is no
// default provider and no fallback: with none configured every call fails
// with what to set, and a provider that fails is reported as it is, never
// retried elsewhere, so a query only ever reaches the service the operator
// named.
//
//	ws, err := search.New(search.Options{Provider: "searxng", SearXNGURL: "http://127.0.0.1:8888"})
//	if err != nil {
//		return err
//	}
//	res, err := ws.Execute(ctx, json.RawMessage(`{"query": "go generics"}`))
//
// Requests go through a [netguard.Guard] that reaches only the provider's
// host; a provider on a private address needs allow_private. Responses
// are scrubbed of the API key, literal or encoded (see
// [netguard.Redactor]), before they are parsed. The tier is
// low: a search reads and changes nothing. The package registers the tool
// with toolfactory in init; the binary includes it with the build tag
// talon_tools_external.
package search
