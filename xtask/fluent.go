package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/talonhq/talon/locales"
)

const fluentUsage = `usage: go run ./xtask fluent <subcommand> [flags]

subcommands:
  check                 report parse errors, missing and obsolete keys, and
                        variables that differ from en; exit 1 on any finding
  fill --locale L       append every key L lacks to L's files with the English
                        text and a "# untranslated" comment above it
  stats                 count keys, translated, untranslated and missing per locale

flags:
  -dir DIR              the locales directory, laid out <lang>/*.ftl (default "locales")
`

func runFluent(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, fluentUsage)
		return exitUsage
	}
	sub, args := args[0], args[1:]
	flags := flag.NewFlagSet("fluent "+sub, flag.ContinueOnError)
	flags.SetOutput(stderr)
	flags.Usage = func() { fmt.Fprint(stderr, fluentUsage) }
	dir := flags.String("dir", "locales", "the locales directory, laid out <lang>/*.ftl")
	var locale *string
	switch sub {
	case "check", "stats":
	case "fill":
		locale = flags.String("locale", "", "the locale to fill, such as ja or zh-CN")
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, fluentUsage)
		return exitOK
	default:
		fmt.Fprintf(stderr, "xtask fluent: unknown subcommand %q\n", sub)
		fmt.Fprint(stderr, fluentUsage)
		return exitUsage
	}
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if flags.NArg() > 0 {
		fmt.Fprintf(stderr, "xtask fluent %s: unexpected argument %q; see go run ./xtask fluent help\n", sub, flags.Arg(0))
		return exitUsage
	}
	switch sub {
	case "check":
		return fluentCheck(*dir, stdout, stderr)
	case "stats":
		return fluentStats(*dir, stdout, stderr)
	default:
		return fluentFill(*dir, *locale, stdout, stderr)
	}
}

// fluentCheck prints one line per finding, relative to dir.
func fluentCheck(dir string, stdout, stderr io.Writer) int {
	if code := requireDir(dir, "fluent check", stderr); code != exitOK {
		return code
	}
	findings := locales.Check(os.DirFS(dir))
	for _, f := range findings {
		fmt.Fprintln(stdout, f)
	}
	if len(findings) > 0 {
		fmt.Fprintf(stderr, "xtask fluent check: %d problem(s) in %s; fix them by hand, or run go run ./xtask fluent fill --locale L for missing keys\n", len(findings), dir)
		return exitFailed
	}
	dirs, _ := locales.LocaleDirs(os.DirFS(dir))
	fmt.Fprintf(stdout, "fluent check: ok (%s)\n", strings.Join(dirs, ", "))
	return exitOK
}

// fluentStats prints a table with one row per locale.
func fluentStats(dir string, stdout, stderr io.Writer) int {
	if code := requireDir(dir, "fluent stats", stderr); code != exitOK {
		return code
	}
	stats, err := locales.Stats(os.DirFS(dir))
	if err != nil {
		fmt.Fprintf(stderr, "xtask fluent stats: %v; run go run ./xtask fluent check for details\n", err)
		return exitFailed
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "locale\tkeys\ttranslated\tuntranslated\tmissing")
	for _, s := range stats {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\n", s.Lang, s.Keys, s.Translated, s.Untranslated, s.Missing)
	}
	if err := tw.Flush(); err != nil {
		fmt.Fprintf(stderr, "xtask fluent stats: %v\n", err)
		return exitFailed
	}
	return exitOK
}

// fluentFill appends every message of en that locale lacks, file by file,
// to locale's file of the same name. Existing lines are never rewritten.
func fluentFill(dir, locale string, stdout, stderr io.Writer) int {
	const name = "xtask fluent fill"
	if locale == "" {
		fmt.Fprintf(stderr, "%s: name the locale to fill, as in --locale ja\n", name)
		return exitUsage
	}
	lang, ok := locales.Normalize(locale)
	if !ok {
		fmt.Fprintf(stderr, "%s: %q is not a language tag; use one such as ja or zh-CN\n", name, locale)
		return exitUsage
	}
	if lang == "en" {
		fmt.Fprintf(stderr, "%s: en is the reference every locale is filled from; edit en/*.ftl by hand\n", name)
		return exitUsage
	}
	if code := requireDir(dir, "fluent fill", stderr); code != exitOK {
		return code
	}
	fsys := os.DirFS(dir)
	enFiles, err := locales.ReadLocale(fsys, "en")
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v; fix en first\n", name, err)
		return exitFailed
	}
	if len(enFiles) == 0 {
		fmt.Fprintf(stderr, "%s: no English messages in %s; fill copies from en/*.ftl\n", name, filepath.Join(dir, "en"))
		return exitFailed
	}
	have, err := locales.ReadLocale(fsys, lang)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v; fix it before filling\n", name, err)
		return exitFailed
	}
	haveIDs, haveKeys := map[string]bool{}, map[string]bool{}
	for _, f := range have {
		for _, m := range f.Resource.Messages {
			haveIDs[m.ID] = true
		}
		for _, e := range f.Resource.Entries() {
			haveKeys[e.Key] = true
		}
	}

	code, added := exitOK, 0
	for _, f := range enFiles {
		rel := path.Join(lang, path.Base(f.Path))
		var add []locales.Message
		for _, m := range f.Resource.Messages {
			if !haveIDs[m.ID] {
				m.Comment = "untranslated"
				add = append(add, m)
				continue
			}
			one := locales.Resource{Messages: []locales.Message{m}}
			for _, e := range one.Entries() {
				if !haveKeys[e.Key] {
					// Appending would define the message twice.
					fmt.Fprintf(stderr, "%s: %s exists but lacks %s; add it to the message by hand\n", rel, m.ID, e.Key)
					code = exitFailed
				}
			}
		}
		if len(add) == 0 {
			continue
		}
		if err := appendMessages(filepath.Join(dir, filepath.FromSlash(rel)), f.Path, add); err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", name, err)
			return exitFailed
		}
		fmt.Fprintf(stdout, "%s: added %d message(s) marked # untranslated\n", rel, len(add))
		added += len(add)
	}
	if added == 0 && code == exitOK {
		fmt.Fprintf(stdout, "%s: nothing to fill\n", lang)
	}
	return code
}

// appendMessages appends msgs to the file at target, creating it (and its
// directory) with a short header when it does not exist.
func appendMessages(target, from string, msgs []locales.Message) error {
	existing, err := os.ReadFile(target)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read %s: %w", target, err)
	}
	var b strings.Builder
	switch {
	case len(existing) == 0:
		fmt.Fprintf(&b, "### Filled from %s. Translate each message and delete its \"# untranslated\" line.\n", from)
	case !strings.HasSuffix(string(existing), "\n"):
		b.WriteByte('\n')
	}
	for _, m := range msgs {
		b.WriteString("\n" + locales.FormatMessage(m))
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(target), err)
	}
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("open %s: %w", target, err)
	}
	if _, err := f.WriteString(b.String()); err != nil {
		_ = f.Close()
		return fmt.Errorf("write %s: %w", target, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", target, err)
	}
	return nil
}

// requireDir reports a missing locales directory in a way that says where
// the task looked.
func requireDir(dir, name string, stderr io.Writer) int {
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		fmt.Fprintf(stderr, "xtask %s: %s is not a directory; run from the module root or pass -dir\n", name, dir)
		return exitFailed
	}
	return exitOK
}
