//go:build deps

// Package deps pins modules that packages under construction will import.
// It is removed once every module here has a real importer.
package deps

import (
	_ "github.com/JohannesKaufmann/html-to-markdown/v2"
	_ "github.com/bluekeyes/go-gitdiff/gitdiff"
	_ "github.com/bmatcuk/doublestar/v4"
	_ "github.com/creack/pty"
	_ "github.com/expr-lang/expr"
	_ "github.com/gowebpki/jcs"
	_ "github.com/hashicorp/go-plugin"
	_ "github.com/modelcontextprotocol/go-sdk/mcp"
	_ "github.com/nicksnyder/go-i18n/v2/i18n"
	_ "github.com/pelletier/go-toml/v2"
	_ "github.com/robfig/cron/v3"
	_ "github.com/rogpeppe/go-internal/testscript"
	_ "github.com/rs/zerolog"
	_ "github.com/santhosh-tekuri/jsonschema/v6"
	_ "github.com/spf13/cobra"
	_ "github.com/tetratelabs/wazero"
	_ "go.uber.org/goleak"
	_ "golang.org/x/net/html"
	_ "golang.org/x/net/html/charset"
	_ "golang.org/x/sys/unix"
	_ "golang.org/x/text/language"
	_ "modernc.org/sqlite"
	_ "mvdan.cc/sh/v3/expand"
	_ "mvdan.cc/sh/v3/syntax"
)
