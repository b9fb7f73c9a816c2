package workspacetest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/talonhq/talon/workspace"
)

// Tree is an operator's home directory holding one file in every place
// talon protects, for tests that check a tool refuses each of them:
//
//	home/.ssh/secret, home/.aws/secret, ...     every [workspace.HomeSecrets] entry
//	home/.netrc, home/.git-credentials, ...     (a file where the entry is a file)
//	home/.local/share/talon/keys/receipts.key   talon's data directory
//	home/.config/talon/settings.toml            talon's configuration directory
//	home/etc/talon.toml                         the loaded config file
//	home/plugins/p/plugin.toml                  a plugins directory outside the data
//	home/receipts/segment.jsonl                 a receipts directory outside the data
//	home/.git/config, home/.git/hooks/pre-commit  a repository (write-protected)
//	home/notes.txt                              an ordinary file
//	home/proj/                                  a workspace that holds none of them,
//	home/proj/link-N -> <the Nth protected file>  but links to each
//
// Every protected file holds [Secret], which no tool output may show.
type Tree struct {
	// Home is the home directory, the workspace that holds everything.
	Home string
	// Proj is home/proj, the workspace that holds nothing protected.
	Proj string
	// Data is talon's data directory, ConfigFile the loaded config.
	Data, ConfigFile string
	// Protected is the list for Home with these locations.
	Protected workspace.Protected
	// Cases are the protected files, one per rule.
	Cases []Case
}

// Case is one protected file of a [Tree].
type Case struct {
	// Rel is the file relative to Home, with forward slashes.
	Rel string
	// Link is the link in Proj that leads to the file, relative to Proj.
	Link string
	// ReadOnly says only changing the file is refused (a repository's
	// hooks and config); reading it is allowed.
	ReadOnly bool
	// Why is the text a refusal must hold: the rule's reason.
	Why string
}

// Secret is the content of every protected file of a [Tree].
const Secret = "PROTECTED-CONTENT"

// NewTree lays out a Tree in a temporary directory and sets HOME to it
// (XDG_CONFIG_HOME and XDG_DATA_HOME unset) for the test.
func NewTree(tb testing.TB) *Tree {
	tb.Helper()
	home, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	if t, ok := tb.(interface{ Setenv(string, string) }); ok {
		t.Setenv("HOME", home)
		t.Setenv("XDG_CONFIG_HOME", "")
		t.Setenv("XDG_DATA_HOME", "")
	}
	t := &Tree{
		Home:       home,
		Proj:       filepath.Join(home, "proj"),
		Data:       filepath.Join(home, ".local", "share", "talon"),
		ConfigFile: filepath.Join(home, "etc", "talon.toml"),
	}
	t.Protected = workspace.NewProtected(workspace.Locations{
		Home:       home,
		ConfigFile: t.ConfigFile,
		ConfigDirs: []string{filepath.Join(home, ".config", "talon")},
		DataDir:    t.Data,
		PluginDirs: []string{filepath.Join(home, "plugins")},
		Extra:      []string{filepath.Join(home, "receipts")},
	})
	add := func(rel, why string, readOnly bool) {
		t.Cases = append(t.Cases, Case{Rel: rel, ReadOnly: readOnly, Why: why})
	}
	add("etc/talon.toml", "talon's configuration file", false)
	add(".config/talon/settings.toml", "talon's configuration", false)
	add(".local/share/talon/keys/receipts.key", "talon's data", false)
	add("plugins/p/plugin.toml", "installed plugins", false)
	add("receipts/segment.jsonl", "talon's state", false)
	for _, s := range workspace.HomeSecrets {
		if s == ".config" {
			add(".config/gh/hosts.yml", "operator secrets under ~/.config", false)
			continue
		}
		rel := s
		if !isFileSecret(s) {
			rel = s + "/secret"
		}
		add(rel, "operator secrets under ~/"+s, false)
	}
	add(".git/config", "git runs programs", true)
	add(".git/hooks/pre-commit", "git runs programs", true)
	for i := range t.Cases {
		c := &t.Cases[i]
		Write(tb, filepath.Join(home, filepath.FromSlash(c.Rel)), Secret+" "+c.Rel+"\n")
		c.Link = "link-" + strings.NewReplacer("/", "_", ".", "_").Replace(c.Rel)
		rel, err := filepath.Rel(t.Proj, filepath.Join(home, filepath.FromSlash(c.Rel)))
		if err != nil {
			tb.Fatal(err)
		}
		if err := os.MkdirAll(t.Proj, 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.Symlink(rel, filepath.Join(t.Proj, c.Link)); err != nil {
			tb.Skipf("symbolic links unavailable: %v", err)
		}
	}
	Write(tb, filepath.Join(home, "notes.txt"), "notes\n")
	Write(tb, filepath.Join(t.Proj, "ok.txt"), "ok\n")
	return t
}

// isFileSecret reports the HomeSecrets entries that are files.
func isFileSecret(s string) bool {
	switch s {
	case ".netrc", ".git-credentials", ".npmrc", ".pypirc", ".pgpass", ".vault-token",
		".cargo/credentials", ".cargo/credentials.toml", ".gem/credentials":
		return true
	}
	return false
}

// Write writes a file for a test, creating its directories.
func Write(tb testing.TB, path, content string) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		tb.Fatal(err)
	}
}
