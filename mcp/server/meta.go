package server

import (
	"bytes"
	"encoding/json"

	"github.com/talonhq/talon/tool"
)

// appendCallResult appends the result of a tools/call: text content
// always, structured content when the data is a JSON object, isError for
// a failed result, and in _meta the receipt of a successful call (under
// [MetaReceipt]) or the mark of a denial (under [MetaDenied]).
func appendCallResult(b []byte, res tool.Result) []byte {
	if !res.Success {
		b = append(b, `{"content":[{"type":"text","text":`...)
		b = appendString(b, res.Error)
		b = append(b, `}],"isError":true`...)
		if res.Denied {
			b = append(b, `,"_meta":{"`+MetaDenied+`":true}`...)
		} else if res.Pending != "" {
			b = append(b, `,"_meta":{"`+MetaPending+`":`...)
			b = append(appendString(b, res.Pending), '}')
		}
		return append(b, '}')
	}
	text := res.Output.Text
	var structured []byte
	if res.Output.Data != nil {
		if d, err := json.Marshal(res.Output.Data); err == nil {
			if t := bytes.TrimSpace(d); len(t) > 0 && t[0] == '{' {
				structured = d
			}
			if text == "" {
				text = string(d)
			}
		}
	}
	b = append(b, `{"content":[{"type":"text","text":`...)
	b = appendString(b, text)
	b = append(b, "}]"...)
	if structured != nil {
		b = append(b, `,"structuredContent":`...)
		b = append(b, structured...)
	}
	if res.Receipt != nil {
		b = append(b, `,"_meta":{"`+MetaReceipt+`":`...)
		b = res.Receipt.AppendCanonical(b)
		b = append(b, '}')
	}
	return append(b, '}')
}
