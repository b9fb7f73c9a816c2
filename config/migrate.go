package config

import (
	_ "embed"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

//go:embed template.toml
var templateTOML []byte

// InitTemplate returns the commented starter file that talon config init
// writes: schema_version, the full catalog selected explicitly, and
// commented examples of a risk profile, receipts and serve.
func InitTemplate() []byte { return slices.Clone(templateTOML) }

// optionalComment is written after an optional key that Migrate adds.
const optionalComment = `"*" = every compiled-in tool; [] = the minimal core; or name extra tools`

// Migrate brings a config text to the current schema without changing what
// it means: it adds optional = ["*"] to [tools] when optional is absent
// (creating the table when needed; an absent optional already loads as the
// full catalog), rewrites the deprecated level "readonly" as "read_only",
// and sets schema_version to [SchemaVersion], adding it at the top when
// absent. Every other key and every comment is kept. Migrate is idempotent:
// on a current file it returns the text unchanged and no changes.
//
// # Errors
//
// The text must be valid TOML; a schema_version newer than this binary is
// refused (upgrade talon instead); optional cannot be added to a [tools]
// written as an inline table.
func Migrate(src []byte) (out []byte, changes []string, err error) {
	var generic map[string]any
	if err := decodeLoose(src, &generic); err != nil {
		return nil, nil, fmt.Errorf("migrate: %w", decodeErrors("", err))
	}
	if _, err := scanDocument(src); err != nil {
		return nil, nil, fmt.Errorf("migrate: %w", editError("", src, err))
	}
	version, hasVersion := int64(0), false
	if v, ok := generic["schema_version"]; ok {
		n, isInt := v.(int64)
		if !isInt {
			return nil, nil, fmt.Errorf("migrate: schema_version = %v is not an integer; set schema_version = %d", FormatValue(v), SchemaVersion)
		}
		version, hasVersion = n, true
	}
	if version > SchemaVersion {
		return nil, nil, fmt.Errorf("migrate: schema_version = %d is newer than this talon understands (%d); upgrade talon", version, SchemaVersion)
	}
	out = slices.Clone(src)

	if doc, _ := scanDocument(out); doc != nil {
		if _, ok := doc.find([]string{"tools", "optional"}); !ok {
			out, err = setValue("", out, []string{"tools", "optional"}, `["*"]`, optionalComment)
			if err != nil {
				return nil, nil, fmt.Errorf("migrate: add tools.optional: %w", err)
			}
			changes = append(changes, `tools.optional: added optional = ["*"] (the full catalog, as before)`)
		}
	}

	out, changes = migrateReadonly(out, changes)

	doc, err := scanDocument(out)
	if err != nil {
		return nil, nil, fmt.Errorf("migrate: %w", editError("", out, err))
	}
	current := strconv.Itoa(SchemaVersion)
	switch e, ok := doc.find([]string{"schema_version"}); {
	case ok && hasVersion && version == SchemaVersion:
	case ok:
		out = splice(out, e.valStart, e.valEnd, current)
		changes = append(changes, fmt.Sprintf("schema_version: set to %d (was %d)", SchemaVersion, version))
	default:
		out = doc.insertTop("schema_version = " + current + "\n")
		changes = append(changes, fmt.Sprintf("schema_version: added schema_version = %d", SchemaVersion))
	}
	if err := decodeLoose(out, new(map[string]any)); err != nil {
		return nil, nil, fmt.Errorf("migrate: the migrated text does not decode (%v); migrate the file by hand", err)
	}
	return out, changes, nil
}

// migrateReadonly rewrites level = "readonly" as "read_only" in every risk
// profile.
func migrateReadonly(src []byte, changes []string) ([]byte, []string) {
	for {
		doc, err := scanDocument(src)
		if err != nil {
			return src, changes
		}
		found := false
		for _, e := range doc.entries {
			if e.kind != entryKeyval || e.inArray || len(e.path) != 3 || e.path[0] != "risk_profiles" || e.path[2] != "level" {
				continue
			}
			raw := strings.TrimSpace(string(src[e.valStart:e.valEnd]))
			if raw != `"readonly"` && raw != `'readonly'` {
				continue
			}
			src = splice(src, e.valStart, e.valEnd, `"read_only"`)
			changes = append(changes, fmt.Sprintf(`%s: "readonly" is now spelled "read_only"`, formatKey(e.path)))
			found = true
			break
		}
		if !found {
			return src, changes
		}
	}
}
