package wasm_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/plugins"
	"github.com/talonhq/talon/plugins/manifest"
	"github.com/talonhq/talon/plugins/wasm"
)

// A host with a hole for an intranet service loads a plugin the loader
// has checked, and calls one of its tools.
func ExampleNew() {
	h := wasm.New(wasm.Options{AllowPrivate: []string{"10.1.0.0/16"}})
	p := &manifest.Plugin{
		Manifest:  manifest.Manifest{Name: "hello", Kind: manifest.KindWASM, Entry: "hello.wasm"},
		EntryPath: "/var/lib/talon/plugins/hello/hello.wasm",
		Grants:    manifest.Grants{AllowedHosts: []string{"api.example.com"}},
	}
	loaded, err := h.Load(context.Background(), p, plugins.Env{Workspace: "/work", DataDir: "/var/lib/talon", Logger: zerolog.Nop()})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer loaded.Close(context.Background())
	for _, t := range loaded.Tools() {
		res, _ := t.Execute(context.Background(), json.RawMessage(`{"name":"Ada"}`))
		fmt.Println(t.Spec().Name, res.Success)
	}
}
