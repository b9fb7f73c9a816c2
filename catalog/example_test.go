package catalog_test

import (
	"fmt"

	"github.com/talonhq/talon/catalog"
	"github.com/talonhq/talon/toolfactory"
)

func ExampleSelect() {
	known := []toolfactory.Entry{
		{Name: "calculator", Feature: toolfactory.FeatureCore},
		{Name: "web_search", Feature: "tools-external", Tag: "talon_tools_external"},
	}
	optional := []string{"calculator", "web_search"}
	sel, err := catalog.Select(catalog.SelectOptions{
		Optional:   &optional,
		Known:      known,
		Registered: []toolfactory.Factory{{Name: "calculator"}},
	})
	fmt.Println(sel.Names(), err)
	for _, d := range sel.Diagnostics {
		fmt.Println(d)
	}
	// Output:
	// [calculator] <nil>
	// tool web_search is not compiled into this binary; it is part of the "tools-external" feature (build tag talon_tools_external): build talon with it from its source tree: `go build $(go run ./xtask generate features --add tools-external --format flags) ./cmd/talon`
}

func ExampleCore() {
	fmt.Println(len(catalog.Core(catalog.SurfaceChat)), len(catalog.Core(catalog.SurfaceCode)))
	// Output: 11 8
}
