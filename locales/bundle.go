package locales

import (
	"embed"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/nicksnyder/go-i18n/v2/i18n"
	"github.com/rs/zerolog"
	"golang.org/x/text/language"
)

//go:embed */*.ftl
var embedded embed.FS

// builtinSource owns the keys of the embedded message files.
const builtinSource = "talon"

// Options configures [New]. The zero value loads the embedded messages only
// and logs nothing.
type Options struct {
	// Logger receives warnings: a key missing in every locale (once per key)
	// and plugin keys that were ignored because another source owns them.
	Logger zerolog.Logger
	// Overlays are operator message directories laid out <lang>/*.ftl (for
	// example os.DirFS of <config dir>/locales). They are applied after
	// everything else, key by key, so they win over embedded and plugin
	// messages alike; later overlays win over earlier ones.
	Overlays []fs.FS
}

// Bundle holds every loaded message, by language. It is safe for concurrent
// use; see the package documentation for when to call AddFS.
type Bundle struct {
	log    zerolog.Logger
	warned sync.Map // message id -> struct{}: missing-key warnings already logged

	mu      sync.RWMutex
	bundle  *i18n.Bundle
	tags    []language.Tag // English first, then in the order they became known
	known   map[language.Tag]bool
	matcher language.Matcher
	// have holds the keys of each parsed language; a language of the
	// embedded files that nobody asked for yet is known but not in have,
	// and lazy names its directory.
	have       map[language.Tag]map[string]bool
	lazy       map[language.Tag]string
	vars       map[string]map[string]struct{} // key -> variables used by any language's text
	owner      map[string]string              // key -> source that defined it first
	overlays   []layer
	localizers map[language.Tag]*i18n.Localizer
}

// layer is the entries of one language read from one file system.
type layer struct {
	tag     language.Tag
	entries []fileEntry
}

type fileEntry struct {
	Entry
	file string
}

// New loads the embedded message files and then opts.Overlays. Embedded
// languages other than English are parsed the first time a [Localizer]
// asks for them (or a regional variant of them): a process that speaks
// English never pays for the others.
//
// # Errors
//
// A bad overlay file fails New with an error naming the file and line.
func New(opts Options) (*Bundle, error) {
	b := &Bundle{
		log:        opts.Logger,
		bundle:     i18n.NewBundle(language.English),
		known:      map[language.Tag]bool{},
		have:       map[language.Tag]map[string]bool{},
		lazy:       map[language.Tag]string{},
		vars:       map[string]map[string]struct{}{},
		owner:      map[string]string{},
		localizers: map[language.Tag]*i18n.Localizer{},
	}
	b.bundle.RegisterUnmarshalFunc("ftl", UnmarshalFTL)
	b.addTag(language.English)
	dirs, err := LocaleDirs(embedded)
	if err != nil {
		return nil, fmt.Errorf("load embedded messages: %w", err)
	}
	var english []string
	for _, dir := range dirs {
		norm, _ := Normalize(dir)
		if tag := language.Make(norm); tag == language.English {
			english = append(english, dir)
		} else if !b.known[tag] {
			b.lazy[tag] = dir
			b.listTag(tag)
		}
	}
	layers, err := collectDirs(embedded, english)
	if err != nil {
		return nil, fmt.Errorf("load embedded messages: %w", err)
	}
	if err := b.apply(layers, builtinSource, false); err != nil {
		return nil, fmt.Errorf("load embedded messages: %w", err)
	}
	for i, o := range opts.Overlays {
		if o == nil {
			continue
		}
		layers, err := collect(o)
		if err != nil {
			return nil, fmt.Errorf("load locale overlay %d: %w", i+1, err)
		}
		b.overlays = append(b.overlays, layers...)
	}
	if err := b.apply(b.overlays, "", true); err != nil {
		return nil, fmt.Errorf("load locale overlays: %w", err)
	}
	return b, nil
}

// AddFS adds the message files of one plugin, laid out <lang>/*.ftl. source
// names the plugin in errors and logs (for example "wasm.weather").
//
// A key already defined by another source (talon itself or another plugin) is
// not replaced: it is skipped with a warning, so a plugin cannot rewrite the
// descriptions of tools it does not own. Operator overlays still win over
// plugin text. Either every file is added or, on error, none.
//
// # Errors
//
// A file that does not parse fails AddFS with an error naming the file and
// line; a directory that is not a language tag wraps [ErrLanguageDir]; an
// empty or reserved source wraps [ErrSource].
func (b *Bundle) AddFS(fsys fs.FS, source string) error {
	if source == "" || source == builtinSource {
		return fmt.Errorf("%w %q: name the plugin that ships the files", ErrSource, source)
	}
	layers, err := collect(fsys)
	if err != nil {
		return fmt.Errorf("load messages of %s: %w", source, err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.apply(layers, source, false); err != nil {
		return fmt.Errorf("load messages of %s: %w", source, err)
	}
	return b.apply(b.overlays, "", true)
}

// Languages lists the languages the bundle renders as BCP 47 tags, sorted:
// the embedded ones (parsed or not yet), the overlays' and the plugins'.
func (b *Bundle) Languages() []string {
	b.mu.RLock()
	defer b.mu.RUnlock()
	out := make([]string, len(b.tags))
	for i, t := range b.tags {
		out[i] = t.String()
	}
	sort.Strings(out)
	return out
}

// Localizer returns a Localizer for lang, a language tag or POSIX locale name
// such as "ja", "ja-JP", "ja_JP.UTF-8" or "zh-CN". It uses the closest loaded
// language and falls back to English, which is also used for a lang that
// matches nothing loaded.
func (b *Bundle) Localizer(lang string) *Localizer {
	b.mu.RLock()
	chain, pending := b.chain(lang)
	b.mu.RUnlock()
	if pending {
		b.mu.Lock()
		for _, tag := range chain {
			b.load(tag)
		}
		chain, _ = b.chain(lang)
		b.mu.Unlock()
	}
	return &Localizer{b: b, chain: chain}
}

// chain returns the languages a Localizer for lang tries, most specific
// first, English last, and whether one of them is an embedded language not
// parsed yet. Callers hold b.mu.
func (b *Bundle) chain(lang string) ([]language.Tag, bool) {
	best := language.English
	if norm, ok := Normalize(lang); ok {
		if _, i, conf := b.matcher.Match(language.Make(norm)); conf != language.No {
			best = b.tags[i]
		}
	}
	chain := []language.Tag{best}
	for t := best.Parent(); !t.IsRoot(); t = t.Parent() {
		if b.known[t] && !slices.Contains(chain, t) {
			chain = append(chain, t)
		}
	}
	if !slices.Contains(chain, language.English) {
		chain = append(chain, language.English)
	}
	pending := false
	for _, t := range chain {
		if _, ok := b.lazy[t]; ok {
			pending = true
		}
	}
	return chain, pending
}

// load parses the embedded messages of tag, if they wait to be, and adds
// them as New would have: talon owns their keys (every embedded language
// has only keys English has, which locales.Check enforces), plugin text
// added before stays, and the overlays of tag are applied again so they
// still win. Callers hold b.mu for writing.
func (b *Bundle) load(tag language.Tag) {
	dir, ok := b.lazy[tag]
	if !ok {
		return
	}
	delete(b.lazy, tag)
	layers, err := collectDirs(embedded, []string{dir})
	if err == nil {
		err = b.apply(layers, builtinSource, false)
	}
	if err != nil {
		b.log.Warn().Err(err).Str("locale", tag.String()).Msg("embedded messages could not be loaded; showing English")
		return
	}
	var overlays []layer
	for _, l := range b.overlays {
		if l.tag == tag {
			overlays = append(overlays, l)
		}
	}
	if err := b.apply(overlays, "", true); err != nil {
		b.log.Warn().Err(err).Str("locale", tag.String()).Msg("locale overlay could not be applied again")
	}
}

// Localizer renders messages in one language, falling back to English key by
// key. It is safe for concurrent use.
type Localizer struct {
	b     *Bundle
	chain []language.Tag // languages to try, most specific first, English last
}

// Lang is the language this Localizer renders, as a BCP 47 tag ("en" when the
// requested language is not loaded).
func (l *Localizer) Lang() string { return l.chain[0].String() }

// Message renders message id with vars, in the Localizer's language, else in
// English. A key missing everywhere renders as "{id}" and logs one warning
// per id for the life of the Bundle. A variable the text uses but vars lacks
// renders as "{$name}".
func (l *Localizer) Message(id string, vars map[string]any) string {
	if s, ok := l.Lookup(id, vars); ok {
		return s
	}
	if _, logged := l.b.warned.LoadOrStore(id, struct{}{}); !logged {
		l.b.log.Warn().Str("message_id", id).Str("locale", l.Lang()).
			Msg("message missing in every locale, showing {" + id + "}; add it to locales/en/tools.ftl")
	}
	return "{" + id + "}"
}

// Lookup is Message without the placeholder: it reports false, and logs
// nothing, when no language has id.
func (l *Localizer) Lookup(id string, vars map[string]any) (string, bool) {
	b := l.b
	b.mu.RLock()
	defer b.mu.RUnlock()
	var data map[string]any
	for _, tag := range l.chain {
		if !b.have[tag][id] {
			continue
		}
		if data == nil {
			data = b.templateData(id, vars)
		}
		s, got, err := b.localizers[tag].LocalizeWithTag(&i18n.LocalizeConfig{MessageID: id, TemplateData: data})
		if err == nil && got == tag {
			return s, true
		}
		b.log.Warn().Err(err).Str("message_id", id).Str("locale", tag.String()).Msg("render message failed; trying the next language")
	}
	return "", false
}

// templateData maps every variable the message uses to its placeholder, then
// lays the caller's values over it.
func (b *Bundle) templateData(id string, vars map[string]any) map[string]any {
	names := b.vars[id]
	data := make(map[string]any, len(names)+len(vars))
	for n := range names {
		data[n] = "{$" + n + "}"
	}
	maps.Copy(data, vars)
	return data
}

// apply adds layers to the go-i18n bundle. Overlay layers replace any key;
// other sources keep the keys they own and skip the ones others own.
// Callers hold b.mu (New runs before the Bundle is shared).
func (b *Bundle) apply(layers []layer, source string, overlay bool) error {
	for _, l := range layers {
		msgs := make([]*i18n.Message, 0, len(l.entries))
		var added []fileEntry
		for _, e := range l.entries {
			if !overlay {
				if owner, ok := b.owner[e.Key]; ok && owner != source {
					b.log.Warn().Str("source", source).Str("owner", owner).Str("message_id", e.Key).
						Str("file", fmt.Sprintf("%s:%d", e.file, e.Line)).
						Msg("message key belongs to another source; ignored, rename the key after your own tool")
					continue
				}
				b.owner[e.Key] = source
			}
			msgs = append(msgs, &i18n.Message{ID: e.Key, Other: toTemplate(e.Pattern)})
			added = append(added, e)
		}
		if len(msgs) == 0 {
			continue
		}
		if err := b.bundle.AddMessages(l.tag, msgs...); err != nil {
			return fmt.Errorf("add %s messages: %w", l.tag, err)
		}
		b.addTag(l.tag)
		for _, e := range added {
			b.have[l.tag][e.Key] = true
			if len(e.Vars) == 0 {
				continue
			}
			if b.vars[e.Key] == nil {
				b.vars[e.Key] = map[string]struct{}{}
			}
			for _, v := range e.Vars {
				b.vars[e.Key][v] = struct{}{}
			}
		}
	}
	return nil
}

// addTag makes tag a parsed language.
func (b *Bundle) addTag(tag language.Tag) {
	b.listTag(tag)
	if b.have[tag] != nil {
		return
	}
	b.have[tag] = map[string]bool{}
	b.localizers[tag] = i18n.NewLocalizer(b.bundle, tag.String())
}

// listTag makes tag one a Localizer may match.
func (b *Bundle) listTag(tag language.Tag) {
	if b.known[tag] {
		return
	}
	b.known[tag] = true
	b.tags = append(b.tags, tag)
	b.matcher = language.NewMatcher(b.tags)
}

// collect reads every language directory of fsys, checking each file and
// each key before anything is added.
func collect(fsys fs.FS) ([]layer, error) {
	dirs, err := LocaleDirs(fsys)
	if err != nil {
		return nil, err
	}
	return collectDirs(fsys, dirs)
}

// collectDirs is collect for the language directories dirs of fsys.
func collectDirs(fsys fs.FS, dirs []string) ([]layer, error) {
	var layers []layer
	index := map[language.Tag]int{}
	seen := map[language.Tag]map[string]string{} // key -> "file:line"
	for _, dir := range dirs {
		norm, ok := Normalize(dir)
		if !ok {
			return nil, fmt.Errorf("%s: %w; name it after a language tag such as ja or zh-CN", dir, ErrLanguageDir)
		}
		tag := language.Make(norm)
		if err := i18n.NewBundle(language.English).AddMessages(tag); err != nil {
			return nil, fmt.Errorf("%s: %w: %v; use a language go-i18n knows", dir, ErrLanguageDir, err)
		}
		files, err := ReadLocale(fsys, dir)
		if err != nil {
			return nil, err
		}
		i, ok := index[tag]
		if !ok {
			i = len(layers)
			index[tag] = i
			layers = append(layers, layer{tag: tag})
			seen[tag] = map[string]string{}
		}
		for _, f := range files {
			for _, e := range f.Resource.Entries() {
				at := fmt.Sprintf("%s:%d", f.Path, e.Line)
				if first, dup := seen[tag][e.Key]; dup {
					return nil, fmt.Errorf("%s: %w %s (first defined at %s); remove one of them", at, ErrDuplicateKey, e.Key, first)
				}
				seen[tag][e.Key] = at
				layers[i].entries = append(layers[i].entries, fileEntry{Entry: e, file: f.Path})
			}
		}
	}
	return layers, nil
}

// LocaleFile is one parsed message file of a locale directory.
type LocaleFile struct {
	Path     string // slash-separated path in the file system, such as "ja/tools.ftl"
	Resource *Resource
}

// LocaleDirs lists the directories at the root of fsys, sorted, leaving out
// "testdata" and names starting with ".". In a locales tree these are the
// language directories.
func LocaleDirs(fsys fs.FS) ([]string, error) {
	ents, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("list locale directories: %w", err)
	}
	var dirs []string
	for _, e := range ents {
		if e.IsDir() && e.Name() != "testdata" && !strings.HasPrefix(e.Name(), ".") {
			dirs = append(dirs, e.Name())
		}
	}
	return dirs, nil
}

// ReadLocale parses every *.ftl file directly inside directory lang of fsys,
// in name order. A missing directory yields no files and no error.
//
// # Errors
//
// The first file that cannot be read or parsed; parse errors are
// [*ParseError] values naming the file and line.
func ReadLocale(fsys fs.FS, lang string) ([]LocaleFile, error) {
	names, err := fs.Glob(fsys, path.Join(lang, "*.ftl"))
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", lang, err)
	}
	sort.Strings(names)
	var files []LocaleFile
	for _, name := range names {
		res, err := readFTL(fsys, name)
		if err != nil {
			return nil, err
		}
		if res != nil {
			files = append(files, LocaleFile{Path: name, Resource: res})
		}
	}
	return files, nil
}

// readFTL parses one file; it returns nil, nil for something that is not a
// regular file.
func readFTL(fsys fs.FS, name string) (*Resource, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if !st.Mode().IsRegular() {
		return nil, nil
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return ParseFTL(name, data)
}

// UnmarshalFTL is a go-i18n UnmarshalFunc for Fluent files; New registers it
// for the "ftl" format. It yields one message per key (attributes as
// "id.attr") whose template reads variables with index, so TemplateData must
// be a map holding every variable the text uses. v must be a *any or a
// *map[string]any.
func UnmarshalFTL(data []byte, v any) error {
	res, err := ParseFTL("", data)
	if err != nil {
		return err
	}
	raw := make(map[string]any)
	for _, e := range res.Entries() {
		if e.Key == "translation" {
			return fmt.Errorf("line %d: message id translation is reserved by go-i18n; rename the message", e.Line)
		}
		raw[e.Key] = map[string]any{"other": toTemplate(e.Pattern)}
	}
	switch p := v.(type) {
	case *any:
		*p = raw
	case *map[string]any:
		*p = raw
	default:
		return fmt.Errorf("unmarshal fluent into %T: pass a *any or *map[string]any", v)
	}
	return nil
}

// toTemplate converts a canonical pattern to a go-i18n (text/template)
// template. Literal text that holds a brace is emitted as a quoted string
// action, so text from a message file can never form a template action.
func toTemplate(pattern string) string {
	var b strings.Builder
	for _, el := range parseCanonical(pattern) {
		switch {
		case el.variable != "":
			b.WriteString(`{{index . "` + el.variable + `"}}`)
		case strings.ContainsAny(el.text, "{}"):
			b.WriteString("{{" + strconv.Quote(el.text) + "}}")
		default:
			b.WriteString(el.text)
		}
	}
	return b.String()
}

// Embedded returns the message files compiled into talon, laid out
// <lang>/*.ftl.
func Embedded() fs.FS { return embedded }

// loaded reports whether tag is known and its embedded messages, if
// any, are parsed (tests).
func (b *Bundle) loaded(tag language.Tag) bool {
	b.mu.RLock()
	defer b.mu.RUnlock()
	_, pending := b.lazy[tag]
	return b.known[tag] && !pending
}
