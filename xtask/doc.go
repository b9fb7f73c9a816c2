// Command xtask runs the repository's maintenance tasks from the module root:
//
//	go run ./xtask fluent check                  # message files in sync with en?
//	go run ./xtask fluent fill --locale ja       # append missing keys, marked untranslated
//	go run ./xtask fluent stats                  # how complete is each locale
//
// Each task is a subcommand registered in main.go. Exit status: 0 success, 1
// the task found problems or failed, 2 usage error.
package main
