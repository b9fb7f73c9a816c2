// Package locales holds talon's message catalogs and turns them into localized
// text: the Fluent (.ftl) files for every shipped language are embedded, parsed
// by a small Fluent reader, and loaded into a go-i18n bundle in which every
// other language overlays English per key.
//
// The smallest use:
//
//	b, err := locales.New(locales.Options{Logger: log})
//	if err != nil {
//		return err
//	}
//	loc := b.Localizer(locales.Detect(flagLocale, cfg.Locale, os.Getenv))
//	desc := loc.Message(locales.ToolID("file_read"), nil)
//
// # Message ids
//
// A tool's description is tool-<name> with "_" written as "-" (see [ToolID]),
// its parameters tool-<name>-param-<param> ([ParamID]), its error texts
// tool-<name>-error-<slug> ([ErrorID]) and any other text it shows
// tool-<name>-text-<slug>. A Fluent attribute .attr of message id is looked
// up as "id.attr".
//
// # Fluent subset
//
// [ParseFTL] reads messages (id = value), values continued on indented lines,
// attributes (.name = value), comments (#, ## and ###), variables ({ $name })
// and string literals ({"{"}, {"}"}, {"\u00A0"}) for text that cannot be
// written directly. Terms, message references, functions, number literals and
// select expressions are rejected with an error that names the line. Trailing
// spaces on every line are dropped; write {" "} to keep one.
//
// # Concurrency
//
// A [Bundle] and its [Localizer] values are safe for concurrent use. A
// Localizer chooses its language chain when it is created, so call
// [Bundle.AddFS] for every plugin before handing out Localizers.
//
// # Errors
//
// Parse errors are [*ParseError] values that name the file and line and wrap
// [ErrSyntax]; other failures wrap the sentinels declared in this package.
package locales
