// Package web provides the outbound HTTP tools: web_fetch, which reads a
// page as text, and http_request, which calls an HTTP API on an allowed
// host with secrets from the configuration.
//
// Both go through a [netguard.Guard], so neither reaches loopback, private,
// link-local or cloud metadata addresses — not directly, not through DNS,
// not after a redirect — unless the operator lists them in allow_private.
//
//	fetch, err := web.NewWebFetch(web.FetchOptions{})
//	if err != nil {
//		return err
//	}
//	res, err := fetch.Execute(ctx, json.RawMessage(`{"url": "https://go.dev/doc/"}`))
//
// # web_fetch
//
// Arguments: url (required), max_bytes (lowers the operator's cap, 2 MiB
// by default) and raw. GET only. HTML (text/html, application/xhtml+xml)
// becomes markdown, with scripts, styles, the head and embedded graphics
// left out and relative links made absolute; raw returns the HTML source
// instead. Plain text, JSON and XML come back as they are. The encoding
// comes from a byte order mark, the Content-Type charset, or a <meta> tag,
// and everything is returned as UTF-8. Other media types, and error
// statuses, are failed results. The text starts with a line naming the
// final URL, the status and the content type, and ends with a note when
// the body was cut at the cap. The tier is low.
//
// # http_request
//
// Arguments: method (GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE; GET by
// default), url, headers, body, secret_headers and max_bytes. The tool
// reaches only hosts in allowed_domains; with none configured every call
// fails with a message that says how to configure them. secret_headers maps
// a header to the name of a secret the operator configured
// ([RequestOptions.Secrets]); the tool inserts the value, and the value never
// appears in the output, errors, plan or logs: wherever the server echoes it
// back, it is replaced by "[secret NAME]" — and so is every other configured
// secret, in its literal and encoded forms (base64, hex, percent- and
// JSON-escaped, reversed; see [netguard.Redactor]). When a redirect leaves the
// request's origin, only harmless headers follow it, so credentials stay
// with the host they were meant for.
//
// GET, HEAD and OPTIONS are low; POST, PUT, PATCH and DELETE, and safe
// methods carrying a method-override header, are high. The plan's summary
// names the method, URL, header and secret names and the body size, and ends
// with a digest of every value, so an approval covers exactly one request.
// Every response, whatever its status, is a successful result: the exchange
// happened, and the status line comes first.
//
// Problems the model can act on are failed results whose text says what to
// do next; the tools register themselves with toolfactory in init.
package web
