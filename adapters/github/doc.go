// Package github provides the github tool: issues and pull requests of
// a repository through the GitHub REST API.
//
// One tool carries several actions, chosen by the action argument:
// list_issues, get_issue, list_pulls and get_pull read; create_issue,
// comment_issue and create_pull write. The token comes from the operator's
// configuration ([tools.github] token, usually "${GITHUB_TOKEN}", expanded
// on each call) and never from the model; without one, reads of public
// repositories still work and writes fail before anything is sent. The
// API root is configurable, so GitHub Enterprise Server works too.
//
//	gh, err := github.New(github.Options{Token: "${GITHUB_TOKEN}", Owner: "octo", Repo: "hello"})
//	if err != nil {
//		return err
//	}
//	res, err := gh.Execute(ctx, json.RawMessage(`{"action": "list_issues", "state": "open"}`))
//
// Reads are low tier. Writes are high: they act on a remote service in the
// operator's name. Their plan names the method, the URL and a digest of the
// exact payload, so an approval covers one request and nothing else.
//
// Lists follow the API's pagination up to the call's limit (at most
// [MaxLimit] items). Failures say what to do next: a rejected token, a
// missing permission, a repository or number that does not exist, input
// GitHub refused, and the rate limit each get their own message. Requests
// go through a [netguard.Guard] that reaches only the API's host, and
// every response is scrubbed of the token, literal or encoded (see
// [netguard.Redactor]), before it is read: it shows as
// "[secret tools.github.token]". The
// package registers the tool with toolfactory in init; the binary includes
// it with the build tag talon_tools_saas.
package github
