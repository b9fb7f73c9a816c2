package main

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// docPlaceholders are the values a console block may leave open, because
// they change from one run to the next.
var docPlaceholders = map[string]string{
	"{n}":        `[0-9]+(\.[0-9]+)?`,
	"{hex}":      `[0-9a-f]+`,
	"{id}":       `[0-9A-Za-z]+`,
	"{b64}":      `[0-9A-Za-z+/_-]+=*`,
	"{time}":     `([0-9]{4}-[0-9]{2}-[0-9]{2}[T ])?[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?`,
	"{duration}": `([0-9]+(\.[0-9]+)?(ns|µs|us|ms|s|m|h))+`,
	"{machine}":  `.+`,
}

var docPlaceholderRE = regexp.MustCompile(`\{(n|hex|id|b64|time|duration|machine)\}`)

// docLineRE compiles an expected line, its white space folded, into a
// regular expression for a whole output line.
func docLineRE(want string) *regexp.Regexp {
	want = foldSpace(want)
	var b strings.Builder
	b.WriteString("^")
	last := 0
	for _, m := range docPlaceholderRE.FindAllStringIndex(want, -1) {
		b.WriteString(regexp.QuoteMeta(want[last:m[0]]))
		b.WriteString("(?:" + docPlaceholders[want[m[0]:m[1]]] + ")")
		last = m[1]
	}
	b.WriteString(regexp.QuoteMeta(want[last:]))
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// foldSpace reads every run of spaces and tabs as one space and drops
// trailing ones.
func foldSpace(s string) string {
	return strings.TrimRight(regexp.MustCompile(`[ \t]+`).ReplaceAllString(s, " "), " ")
}

// matchDocOutput reports whether got, the whole output of a command, is
// what the lines of want describe: each line a whole output line, in
// order, "..." any number of lines, trailing blank lines ignored on both
// sides.
func matchDocOutput(want []string, got string) bool {
	lines := strings.Split(strings.TrimRight(got, "\n"), "\n")
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	for i := range lines {
		lines[i] = foldSpace(lines[i])
	}
	res := make([]*regexp.Regexp, len(want))
	for i, w := range want {
		if strings.TrimSpace(w) != "..." {
			res[i] = docLineRE(w)
		}
	}
	// ok[j]: the expected lines seen so far match exactly lines[:j].
	ok := make([]bool, len(lines)+1)
	ok[0] = true
	for _, re := range res {
		next := make([]bool, len(lines)+1)
		for j := range ok {
			if !ok[j] {
				continue
			}
			if re == nil { // "...": any number of lines from here on
				for k := j; k <= len(lines); k++ {
					next[k] = true
				}
				break
			}
			if j < len(lines) && re.MatchString(lines[j]) {
				next[j+1] = true
			}
		}
		ok = next
	}
	return ok[len(lines)]
}

var (
	goEnvOnce sync.Once
	goEnvVars map[string]string
)

// goEnv is where the machine's Go keeps its build and module caches, for
// the programs a console block runs.
func goEnv() map[string]string {
	goEnvOnce.Do(func() {
		goEnvVars = map[string]string{}
		for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
			v := os.Getenv(k)
			if v == "" {
				if out, err := exec.Command("go", "env", k).Output(); err == nil {
					v = strings.TrimSpace(string(out))
				}
			}
			goEnvVars[k] = v
		}
	})
	return goEnvVars
}

func TestMatchDocOutput(t *testing.T) {
	tests := []struct {
		name string
		want []string
		got  string
		ok   bool
	}{
		{name: "exact", want: []string{"a b", "c"}, got: "a b\nc\n", ok: true},
		{name: "spaces folded", want: []string{"NAME  TIER"}, got: "NAME\t\tTIER   \n", ok: true},
		{name: "a line cut short", want: []string{"wrote"}, got: "wrote /home/me/x\n"},
		{name: "a line missing", want: []string{"a"}, got: "a\nb\n"},
		{name: "order", want: []string{"b", "a"}, got: "a\nb\n"},
		{name: "nothing printed", want: nil, got: "", ok: true},
		{name: "something printed", want: nil, got: "x\n"},
		{name: "trailing blank lines", want: []string{"a"}, got: "a\n\n\n", ok: true},
		{name: "blank line inside", want: []string{"a", "", "b"}, got: "a\n\nb\n", ok: true},
		{name: "dots anywhere", want: []string{"...", "b", "...", "d"}, got: "a\nb\nc\nd\n", ok: true},
		{name: "dots for none", want: []string{"a", "...", "b"}, got: "a\nb\n", ok: true},
		{name: "dots at the end", want: []string{"a", "..."}, got: "a\nb\nc\n", ok: true},
		{name: "dots cannot skip within a line", want: []string{"...", "b"}, got: "a b\n"},
		{name: "placeholders", want: []string{"{n} {hex} {id} {b64} {time} {duration}"},
			got: "12 4ffa98e9 01M8S50GQM8A63752QKJ52B6BR KktkjWk4miE4dvaT8QuT81KE4aBoNZycX9w52ZAhG0s= 2026-12-01 15:54:10 1m2.5s\n", ok: true},
		{name: "rfc3339", want: []string{"time: {time}"}, got: "time: 2026-12-01T15:54:10.548655Z\n", ok: true},
		{name: "time of day", want: []string{"{time} INF x duration={n}"}, got: "16:02:58 INF x duration=0.08805\n", ok: true},
		{name: "placeholder is not any text", want: []string{"sha256 {hex}"}, got: "sha256 xyz\n"},
		{name: "machine", want: []string{"sandbox: {machine}"}, got: "sandbox: landlock-v7 fs+net (mode auto)\n", ok: true},
		{name: "other braces are literal", want: []string{`{"name":"Ada"} {x}`}, got: `{"name":"Ada"} {x}` + "\n", ok: true},
		{name: "regexp characters are literal", want: []string{"a.c (d)"}, got: "abc (d)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := matchDocOutput(tt.want, tt.got); got != tt.ok {
				t.Errorf("matchDocOutput(%q, %q) = %v, want %v", tt.want, tt.got, got, tt.ok)
			}
		})
	}
}

func TestParseDocCmd(t *testing.T) {
	tests := []struct {
		name string
		text string
		args []string
		vars []string
		exit int
		bad  bool
	}{
		{name: "talon", text: `talon tools call calculator '{"expression":"1+1"}'`, args: []string{"talon", "tools", "call", "calculator", `{"expression":"1+1"}`}},
		{name: "exit annotation", text: "talon nosuch # exit 2", args: []string{"talon", "nosuch"}, exit: 2},
		{name: "comment", text: "talon plugins list   # what is installed", args: []string{"talon", "plugins", "list"}},
		{name: "tilde", text: "talon plugins keygen ~/k.key", args: []string{"talon", "plugins", "keygen", docTilde + "/k.key"}},
		{name: "single quotes keep $", text: `talon config set x '["$HOME/.aws"]'`, args: []string{"talon", "config", "set", "x", `["$HOME/.aws"]`}},
		{name: "cd", text: "cd hello", args: []string{"cd", "hello"}},
		{name: "go build with GOOS", text: "GOOS=wasip1 GOARCH=wasm go build -o x.wasm .", args: []string{"go", "build", "-o", "x.wasm", "."}, vars: []string{"GOOS=wasip1", "GOARCH=wasm"}},
		{name: "go test", text: "go test ./...", args: []string{"go", "test", "./..."}},
		{name: "make", text: "make test", args: []string{"make", "test"}},
		{name: "go run refused", text: "go run .", bad: true},
		{name: "go without a command refused", text: "go", bad: true},
		{name: "another program refused", text: "rm -rf hello", bad: true},
		{name: "a shell refused", text: "sh -c 'make'", bad: true},
		{name: "another variable refused", text: "GOFLAGS=-x go build .", bad: true},
		{name: "a variable for talon refused", text: "TALON_CONFIG=x talon config path", bad: true},
		{name: "an expansion refused", text: "talon plugins sign $DIR", bad: true},
		{name: "a pipe refused", text: "talon tools list | grep x", bad: true},
		{name: "two commands refused", text: "cd hello && make", bad: true},
		{name: "a redirection refused", text: "talon receipts export > out.jsonl", bad: true},
		{name: "nothing refused", text: "GOOS=wasip1", bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseDocCmd(tt.text)
			if tt.bad {
				if err == nil {
					t.Fatalf("parseDocCmd(%q) = %q, want an error", tt.text, c.args)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(c.args, tt.args) || !slices.Equal(c.vars, tt.vars) || c.wantExit != tt.exit {
				t.Errorf("parseDocCmd(%q) = args %q, vars %q, exit %d; want %q, %q, %d", tt.text, c.args, c.vars, c.wantExit, tt.args, tt.vars, tt.exit)
			}
		})
	}
}
