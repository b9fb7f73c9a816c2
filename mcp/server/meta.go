package server

import (
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/talonhq/talon/tool"
)

// resultMeta is the _meta of a call's result: the receipt of a successful
// call, under [MetaReceipt]. It returns nil when there is nothing to carry.
func resultMeta(res tool.Result) sdk.Meta {
	if !res.Success || res.Receipt == nil {
		return nil
	}
	return sdk.Meta{MetaReceipt: res.Receipt}
}
