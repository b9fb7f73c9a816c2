// Package scaffold writes a new Go WASM plugin, the project `talon plugins
// new NAME` creates: main.go registering one tool with plugins/pdk, its
// handler and a test that calls it natively, plugin.toml, locales/en and
// locales/ja, a Makefile, a README and a .gitignore. The result builds with
// the standard Go toolchain alone:
//
//	files, err := scaffold.Write("hello", scaffold.Options{Name: "hello"})
package scaffold
