//go:build wasip1

// Command hello-go is an example talon plugin with two tools: greet, which
// needs nothing from the host, and fetch, which makes a GET request to a
// host in its allowed_hosts through the host's http_request.
//
// Build it with the standard toolchain:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o hello.wasm .
package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/talonhq/talon/plugins/pdk"
)

func init() {
	pdk.Register(pdk.Tool{
		Name:        "greet",
		Description: "Greet someone by name.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","description":"Who to greet."}},"required":["name"]}`),
		Tier:        pdk.Low,
		Handler:     pdk.Handle(greet),
	})
	pdk.Register(pdk.Tool{
		Name:        "fetch",
		Description: "Fetch a URL on an allowed host and return its status and the start of its body.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"url":{"type":"string","description":"The http or https URL to fetch."}},"required":["url"]}`),
		Tier:        pdk.Medium,
		Handler:     pdk.Handle(fetch),
	})
}

type greetArgs struct {
	Name string `json:"name"`
}

func greet(in greetArgs) (pdk.Result, error) {
	name := strings.TrimSpace(in.Name)
	if name == "" {
		return pdk.Errorf("name is empty: say who to greet"), nil
	}
	return pdk.Text("Hello, " + name + "!"), nil
}

type fetchArgs struct {
	URL string `json:"url"`
}

func fetch(in fetchArgs) (pdk.Result, error) {
	resp, err := pdk.Get(in.URL)
	if err != nil {
		return pdk.Result{}, err
	}
	pdk.Log(pdk.LevelInfo, fmt.Sprintf("fetched %s: %d", in.URL, resp.Status))
	body := resp.Body
	if len(body) > 200 {
		body = body[:200]
	}
	return pdk.JSON(map[string]any{"status": resp.Status, "body": body})
}

func main() {}
