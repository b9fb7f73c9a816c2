### Descriptions of the outbound HTTP tools, web_fetch and http_request.

## web_fetch

tool-web-fetch = Fetch a web page with GET and return it as readable text: HTML is converted to markdown without scripts or styles, and plain text, JSON and XML come back as they are. Only public http and https addresses can be reached; local and private networks are refused. Long pages are cut at max_bytes, with a note saying so.
tool-web-fetch-param-url = Full URL of the page, starting with https:// or http://.
tool-web-fetch-param-max-bytes = Maximum number of bytes of the response body to read. The operator's limit applies when this is larger or omitted.
tool-web-fetch-param-raw = Return the body as text without converting HTML to markdown, for example to read the HTML source. Defaults to false.

## http_request

tool-http-request = Send one HTTP request to an API on a host the operator allows, and return the status, the main response headers and the body. GET, HEAD and OPTIONS only read; POST, PUT, PATCH and DELETE can change data and usually need approval. Credentials are never written into the call: name a configured secret in secret_headers and the tool inserts its value.
tool-http-request-param-method = HTTP method: GET, HEAD, OPTIONS, POST, PUT, PATCH or DELETE. Defaults to GET.
tool-http-request-param-url = Full URL of the request, starting with https:// or http://, on a host in the operator's allowed domains.
tool-http-request-param-headers = Request headers as an object of names to string values, such as "Accept" mapped to "application/json". Do not put credentials here; use secret_headers.
tool-http-request-param-body = Request body as a string. JSON bodies are sent as application/json unless a Content-Type header says otherwise.
tool-http-request-param-secret-headers = Headers whose values are secrets configured by the operator, as an object of header names to secret names, such as "Authorization" mapped to "GITHUB_TOKEN". The values are inserted by the tool and never shown.
tool-http-request-param-max-bytes = Maximum number of bytes of the response body to read. The operator's limit applies when this is larger or omitted.
