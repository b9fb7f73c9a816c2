// Package scaffold writes a new Go plugin, the project `talon plugins new
// NAME` creates: a WASM plugin with plugins/pdk (the default) or, with
// Kind manifest.KindProcess, a subprocess plugin with plugins/sdk. Either
// has main.go registering one tool, its handler and a test that calls it
// natively, plugin.toml, locales/en and locales/ja, a Makefile, a README
// and a .gitignore, and carries in talon/ a copy of the kit modules of the
// talon that made it, which go.mod points at: it builds with the standard
// Go toolchain alone and no network.
//
//	files, err := scaffold.Write("hello", scaffold.Options{Name: "hello"})
package scaffold
