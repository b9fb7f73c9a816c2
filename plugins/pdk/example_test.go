package pdk_test

import (
	"encoding/json"
	"fmt"

	"github.com/talonhq/talon/plugins/pdk"
)

// A plugin registers its tools from init; natively, Invoke runs one as
// the host would.
func Example() {
	pdk.Register(pdk.Tool{
		Name:        "shout",
		Description: "Repeat a word loudly.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"word":{"type":"string"}},"required":["word"]}`),
		Tier:        pdk.Low,
		Handler: pdk.Handle(func(in struct {
			Word string `json:"word"`
		}) (pdk.Result, error) {
			return pdk.Text(in.Word + "!"), nil
		}),
	})
	r := pdk.Invoke("shout", json.RawMessage(`{"word":"hey"}`))
	fmt.Println(r.Content[0].Text, r.IsError)
	// Output: hey! false
}
