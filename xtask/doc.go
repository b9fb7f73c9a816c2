// Command xtask runs the repository's maintenance tasks from the module root:
//
//	go run ./xtask fluent check                  # message files in sync with en?
//	go run ./xtask fluent fill --locale ja       # append missing keys, marked untranslated
//	go run ./xtask fluent stats                  # how complete is each locale
//	go run ./xtask generate features --selection dist --target linux/arm/7
//	                                             # build tags of a selection (build/features.toml)
//	go run ./xtask release matrix                # release legs (build/targets.toml) as JSON
//	go run ./xtask release build                 # cross-compile, archive, SHA256SUMS into dist/
//
// Each task is a subcommand registered in main.go. Exit status: 0 success, 1
// the task found problems or failed, 2 usage error.
package main
