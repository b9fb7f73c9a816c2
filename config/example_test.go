package config_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/talonhq/talon/config"
)

func ExampleLoad() {
	dir, err := os.MkdirTemp("", "talon-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "talon.toml")
	text := "schema_version = 1\n\n[tools]\noptional = []\n\n[risk_profiles.ci]\nlevel = \"full\"\n"
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		fmt.Println(err)
		return
	}

	src, err := config.Discover("", dir, func(string) string { return "" })
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg, warnings, err := config.Load(src)
	if err != nil {
		fmt.Println(err)
		return
	}
	ci, _ := cfg.Profile("ci")
	def, _ := cfg.Profile("")
	fmt.Println(src.Origin, len(warnings))
	fmt.Println(cfg.Tools.OptionalTools(), cfg.Tools.Shell.Timeout())
	fmt.Println(ci.LevelName(), def.LevelName(), def.RequireApprovalForMediumRisk())
	// Output:
	// upward 0
	// [] 1m0s
	// full supervised true
}

func ExampleParse() {
	_, _, err := config.Parse("talon.toml", []byte("schema_version = 1\n[tools]\noptinal = []\n"))
	var problem *config.Error
	if errors.As(err, &problem) {
		fmt.Println(problem.Line, problem.Key)
	}
	fmt.Println(err)
	// Output:
	// 3 tools.optinal
	// talon.toml:3:1: unknown key "tools.optinal" (did you mean "optional"?); remove it or fix the spelling
}

func ExampleSetInText() {
	src := []byte(`schema_version = 1

[tools]
optional = ["*"] # everything this build has
`)
	out, err := config.SetInText(src, "tools.optional", "[]")
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err = config.SetInText(out, "serve.surface", "code")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(out))
	// Output:
	// schema_version = 1
	//
	// [tools]
	// optional = [] # everything this build has
	//
	// [serve]
	// surface = "code"
}

func ExampleGet() {
	cfg, _, _ := config.Parse("talon.toml", []byte("schema_version = 1\n[serve]\nsurface = \"code\"\n"))
	for _, key := range []string{"serve.surface", "serve.listen", "risk_profiles.default.level", "tools.optional"} {
		v, err := config.Get(cfg, key)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(key, "=", config.FormatValue(v))
	}
	_, err := config.Get(cfg, "serve.surfce")
	fmt.Println(err)
	// Output:
	// serve.surface = "code"
	// serve.listen = "127.0.0.1:7357"
	// risk_profiles.default.level = "supervised"
	// tools.optional = ["*"]
	// unknown config key "serve.surfce" (did you mean "surface"?); check the spelling
}

func ExampleFormatValue() {
	fmt.Println(config.FormatValue([]string{"*"}))
	fmt.Println(config.FormatValue("en"))
	fmt.Println(config.FormatValue(true))
	fmt.Println(config.FormatValue(map[string]any{"level": "full", "workspace_only": false}))
	// Output:
	// ["*"]
	// "en"
	// true
	// { level = "full", workspace_only = false }
}

func ExampleMigrate() {
	old := []byte("# my settings\n\n[serve]\nlisten = \"127.0.0.1:7000\"\n")
	out, changes, err := config.Migrate(old)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(out))
	fmt.Println("--")
	for _, c := range changes {
		fmt.Println(c)
	}
	// Output:
	// # my settings
	//
	// schema_version = 1
	//
	// [serve]
	// listen = "127.0.0.1:7000"
	//
	// [tools]
	// optional = ["*"]  # "*" = every compiled-in tool; [] = the minimal core; or name extra tools
	// --
	// tools.optional: added optional = ["*"] (the full catalog, as before)
	// schema_version: added schema_version = 1
}

func ExampleDiscover() {
	env := map[string]string{"TALON_CONFIG": "/nonexistent/talon.toml"}
	_, err := config.Discover("", "/", func(k string) string { return env[k] })
	fmt.Println(errors.Is(err, config.ErrNotFound))
	// Output:
	// true
}

func ExampleConfig_Profile() {
	cfg := config.Default()
	_, err := cfg.Profile("nightly")
	fmt.Println(err)
	// Output:
	// unknown risk profile "nightly"; defined profiles: default
}

func ExampleInitTemplate() {
	cfg, warnings, err := config.Parse("talon.toml", config.InitTemplate())
	fmt.Println(cfg.Tools.OptionalTools(), len(warnings), err)
	// Output:
	// [*] 0 <nil>
}

func ExampleSetInFile() {
	dir, err := os.MkdirTemp("", "talon-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "talon.toml")
	if err := os.WriteFile(path, config.InitTemplate(), 0o600); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(config.SetInFile(path, "tools.optional", "[]"))

	// An edit that would not load is refused and the file stays as it was.
	err = config.SetInFile(path, "serve.surface", "web")
	var problem *config.Error
	if errors.As(err, &problem) {
		fmt.Println(problem.Msg)
	}
	// Output:
	// <nil>
	// serve.surface = "web" is not allowed; use one of "chat", "code"
}
