package manifest_test

import (
	"fmt"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/plugins/manifest"
)

func ExampleParse() {
	m, err := manifest.Parse([]byte(`
name = "weather"
version = "0.1.0"
abi_version = 1
kind = "wasm"
entry = "weather.wasm"
sha256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

[permissions.http]
allowed_hosts = ["api.open-meteo.com"]
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Name, m.Kind, m.Permissions.HTTP.AllowedHosts, m.Limits.Timeout())

	_, err = manifest.Parse([]byte("name = \"weather\"\nkind = \"wasm\"\nabi_version = 2\nentry = \"w.wasm\"\nsha256 = \"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\"\n"))
	fmt.Println(err)
	// Output:
	// weather wasm [api.open-meteo.com] 30s
	// 3:1: plugin weather speaks ABI v2; this talon speaks v1: install a build of weather for ABI v1
}

func ExampleSign() {
	pub, priv := manifest.GenerateKey()
	text := []byte("name = \"weather\"\nversion = \"0.1.0\"\nabi_version = 1\nkind = \"wasm\"\nentry = \"weather.wasm\"\nsha256 = \"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\"\n")
	signed, err := manifest.Sign(text, priv)
	if err != nil {
		fmt.Println(err)
		return
	}
	m, _ := manifest.Parse(signed)
	st := manifest.Verify(m, signed, []string{manifest.PublicKeyString(pub)})
	fmt.Println(st, manifest.CheckSignature(config.SignatureStrict, st))
	st = manifest.Verify(m, signed, nil)
	fmt.Println(st, manifest.CheckSignature(config.SignaturePermissive, st) == nil)
	// Output:
	// signed-trusted <nil>
	// signed-untrusted true
}

func ExampleResolveGrants() {
	m := &manifest.Manifest{Name: "weather", Permissions: manifest.Permissions{
		HTTP:    manifest.HTTPPermissions{AllowedHosts: []string{"api.open-meteo.com", "*.example.com"}},
		Secrets: []string{"API_KEY"},
	}}
	entry := &config.PluginEntry{Name: "weather", AllowedHosts: []string{"*.open-meteo.com", "eu.example.com"}}
	g, err := manifest.ResolveGrants(m, entry, ".")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(g.AllowedHosts, g.Secrets, g.TierFloor())
	// Output:
	// [api.open-meteo.com eu.example.com] [] medium
}
