package secret

import (
	"errors"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
)

// secretWords are the parts of a variable name that mark it as holding a
// secret, matched anywhere in the name, case-insensitively.
var secretWords = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "API_KEY", "APIKEY", "PRIVATE_KEY", "CREDENTIAL"}

// secretSuffix marks a name ending in it as a secret too (AWS_ACCESS_KEY,
// STRIPE_KEY), case-insensitively.
const secretSuffix = "_KEY"

// IsSecretName reports whether a variable of this name holds a secret by
// its name alone: it contains TOKEN, SECRET, PASSWORD, PASSWD, API_KEY,
// APIKEY, PRIVATE_KEY or CREDENTIAL, or ends in _KEY, in any case.
func IsSecretName(name string) bool {
	up := strings.ToUpper(name)
	if strings.HasSuffix(up, secretSuffix) {
		return true
	}
	for _, w := range secretWords {
		if strings.Contains(up, w) {
			return true
		}
	}
	return false
}

// ordinaryNames are variables that describe the process, not secrets:
// Protect never removes them for being named, since talon and every
// program need them (a command tool's env may well say HOME = "${HOME}").
var ordinaryNames = []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "PWD", "TMPDIR", "TERM", "COLORTERM", "NO_COLOR", "LANG", "LANGUAGE", "TZ"}

// ordinaryPrefixes mark families of such variables.
var ordinaryPrefixes = []string{"LC_", "XDG_"}

// Ordinary reports whether a variable of this name describes the process
// rather than holding a secret: PATH, HOME, USER, LOGNAME, SHELL, PWD,
// TMPDIR, TERM, COLORTERM, NO_COLOR, LANG, LANGUAGE, TZ, LC_* and XDG_*.
// [Protect] keeps these even when it is given their names.
func Ordinary(name string) bool {
	if slices.Contains(ordinaryNames, name) {
		return true
	}
	for _, p := range ordinaryPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// state is what Protect took from the environment.
var state struct {
	mu sync.RWMutex
	// taken maps each removed variable to its value.
	taken map[string]string
	// extra are the names Protect was given, besides IsSecretName's.
	extra map[string]bool
}

// Protect removes from the process environment every variable whose name
// [IsSecretName] matches or that names lists (say, the variables the
// configuration references as ${VAR}), keeping a copy that [Lookup] and
// [Getenv] read; the [Ordinary] names stay. On Linux it also overwrites
// those variables with NUL bytes in the initial environment block (what
// /proc/<pid>/environ shows; the other variables stay readable there).
//
// Protect may be called again with more names, before or after [Seal]; a
// variable it already took keeps the value it had the first time.
//
// # Errors
//
// The variables are always removed from the process environment. An
// error says that the environment block could not be overwritten; the
// caller should log it and go on.
func Protect(names []string) error {
	state.mu.Lock()
	defer state.mu.Unlock()
	if state.taken == nil {
		state.taken = map[string]string{}
		state.extra = map[string]bool{}
	}
	for _, n := range names {
		if !Ordinary(n) {
			state.extra[n] = true
		}
	}
	var errs []error
	for _, kv := range os.Environ() {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" || !isTaken(name) {
			continue
		}
		if _, had := state.taken[name]; !had {
			state.taken[name] = value
		}
		if err := os.Unsetenv(name); err != nil {
			errs = append(errs, err)
		}
	}
	errs = append(errs, hide(isTaken))
	return errors.Join(errs...)
}

// Seal makes the process non-dumpable on Linux, so processes of the same
// user without CAP_SYS_PTRACE can no longer read its environment, memory
// or descriptors, nor attach to it. Call it after the first [Protect].
//
// A process that starts children in new user namespaces must not be
// sealed: the kernel then lets it write no child's uid_map, unless it is
// root. Elsewhere Seal does nothing.
//
// # Errors
//
// The error says the flag could not be set; the caller should log it.
func Seal() error { return seal() }

// isTaken reports whether Protect removes a variable of this name. The
// caller holds state.mu.
func isTaken(name string) bool {
	return state.extra[name] || (IsSecretName(name) && !Ordinary(name))
}

// Lookup is [os.LookupEnv] that also sees the variables [Protect] removed,
// with the values they had when it removed them.
func Lookup(name string) (string, bool) {
	state.mu.RLock()
	v, ok := state.taken[name]
	state.mu.RUnlock()
	if ok {
		return v, true
	}
	return os.LookupEnv(name)
}

// Getenv is [os.Getenv] that also sees the variables [Protect] removed.
func Getenv(name string) string {
	v, _ := Lookup(name)
	return v
}

// Taken returns the value of a variable [Protect] removed from the
// process environment, and whether it did.
func Taken(name string) (string, bool) {
	state.mu.RLock()
	defer state.mu.RUnlock()
	v, ok := state.taken[name]
	return v, ok
}

// Removed lists, sorted, the variables [Protect] removed.
func Removed() []string {
	state.mu.RLock()
	defer state.mu.RUnlock()
	out := make([]string, 0, len(state.taken))
	for n := range state.taken {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Referenced lists, sorted and once each, the names of the variables that
// ${NAME} references in any string reachable from v: struct fields
// (exported or not), slices, arrays, maps (keys and values), pointers and
// interfaces. It is how a caller finds the variables a configuration
// reads as secrets.
func Referenced(v any) []string {
	seen := map[string]bool{}
	walk(reflect.ValueOf(v), seen, 0)
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// maxDepth bounds the walk, so a cyclic value cannot loop forever.
const maxDepth = 64

func walk(v reflect.Value, seen map[string]bool, depth int) {
	if !v.IsValid() || depth > maxDepth {
		return
	}
	switch v.Kind() {
	case reflect.String:
		refs(v.String(), seen)
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			walk(v.Elem(), seen, depth+1)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			walk(v.Field(i), seen, depth+1)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			walk(v.Index(i), seen, depth+1)
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			walk(it.Key(), seen, depth+1)
			walk(it.Value(), seen, depth+1)
		}
	default:
	}
}

// refs adds the names of every well-formed ${NAME} in s.
func refs(s string, seen map[string]bool) {
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			return
		}
		s = s[i+2:]
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return
		}
		if name := s[:end]; validName(name) {
			seen[name] = true
		}
		s = s[end+1:]
	}
}

// validName is config.EnvName's rule: letters, digits and _, not starting
// with a digit. (config imports this package, so it cannot be called.)
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_', c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
