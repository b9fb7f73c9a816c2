// Package config loads, validates and edits talon.toml, the operator's
// configuration file.
//
// Decoding is strict: an unknown key or a value of the wrong type is an
// [*Error] that names the file, the line, the column and the key. Load runs
// [Config.Validate] and returns warnings (deprecated spellings, a file that
// needs migrating) separately from errors.
//
// The smallest use:
//
//	src, err := config.Discover(flagValue, cwd, os.Getenv)
//	if err != nil {
//		return err
//	}
//	cfg, warnings, err := config.Load(src)
//
// # Fields and defaults
//
// A field holds what the file says; a zero or nil field means the key was
// absent. Methods apply the documented defaults, so a zero [Config] behaves
// exactly like the embedded defaults returned by [Default]:
//
//   - a key ending in _seconds has a method without the suffix that returns a
//     [time.Duration] (CommandTool.Timeout, Approvals.Timeout);
//   - an enumeration has a method that returns the normalized value
//     (RiskProfile.LevelName maps the alias "readonly" to "read_only");
//   - a key whose zero value differs from its default (a boolean that defaults
//     to true, a list whose absence means "the default list") is a pointer
//     field with the suffix Setting, and the method carries the key's name
//     (RiskProfile.RequireApprovalForMediumRisk).
//
// # Editing
//
// [SetInText], [SetInFile] and [Migrate] edit the original text rather than
// re-encoding the decoded value, so comments and layout survive. Only the
// span of the edited value changes; a comment after it on the same line is
// kept. Every edit is decoded strictly and validated before it is returned or
// written.
package config
