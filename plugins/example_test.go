package plugins_test

import (
	"context"
	"fmt"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/plugins"
)

// Plugins are off by default: Load returns an empty set until [plugins]
// enabled = true.
func ExampleLoad() {
	set, err := plugins.Load(context.Background(), plugins.Options{Config: config.Default(), DataDir: "/nonexistent"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer func() { _ = set.Close(context.Background()) }()
	fmt.Println(len(set.Tools), len(set.Warnings))
	// Output:
	// 0 0
}
