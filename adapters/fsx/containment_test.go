package fsx_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/toolfactory"
)

// homeFixture is an operator's home directory used as the workspace, as
// when talon starts from $HOME:
//
//	home/.ssh/id_rsa                          a private key
//	home/.aws/credentials
//	home/.local/share/talon/keys/receipts.key talon's signing key (data dir)
//	home/talon.toml                           the config, written by config init
//	home/notes.txt                            an ordinary file
//	home/.git/config, home/.git/hooks/        a repository
type homeFixture struct {
	home, data, config string
	env                toolfactory.Env
}

const (
	keyText    = "-----BEGIN OPENSSH PRIVATE KEY-----\nKEYDATA\n"
	signText   = "SIGNINGKEY\n"
	configText = "[risk_profiles.default]\nlevel = \"supervised\"\n"
)

func newHomeFixture(t *testing.T) *homeFixture {
	t.Helper()
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_DATA_HOME", "")
	f := &homeFixture{home: home, data: filepath.Join(home, ".local", "share", "talon"), config: filepath.Join(home, "talon.toml")}
	mustWrite(t, filepath.Join(home, ".ssh", "id_rsa"), keyText)
	mustWrite(t, filepath.Join(home, ".aws", "credentials"), "KEYDATA aws\n")
	mustWrite(t, filepath.Join(f.data, "keys", "receipts.key"), signText)
	mustWrite(t, f.config, configText)
	mustWrite(t, filepath.Join(home, "notes.txt"), "notes\n")
	mustWrite(t, filepath.Join(home, ".git", "config"), "[core]\n\tbare = false\n")
	mustWrite(t, filepath.Join(home, ".git", "hooks", "README"), "hooks\n")
	cfg, _, err := config.Load(config.Source{Path: f.config})
	if err != nil {
		t.Fatal(err)
	}
	f.env = toolfactory.Env{Workspace: home, DataDir: f.data, Config: cfg}
	return f
}

func (f *homeFixture) tool(t *testing.T, name string) tool.Tool {
	t.Helper()
	fac, ok := toolfactory.Get(name)
	if !ok {
		t.Fatalf("%s is not registered", name)
	}
	tl, err := fac.New(f.env)
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

// TestProtectedFromHome: with the home directory as the workspace, no
// file tool reads the operator's keys or talon's signing key, lists or
// searches them, or rewrites talon's config or a repository's hooks.
// Before protected paths, file_read returned the private key and the
// signing key, and one file_write of talon.toml changed the policy.
func TestProtectedFromHome(t *testing.T) {
	f := newHomeFixture(t)
	tests := []struct {
		name    string
		tool    string
		args    map[string]any
		wantErr string // a failure containing this
		hidden  []string
	}{
		{name: "read private key", tool: "file_read", args: map[string]any{"path": ".ssh/id_rsa"},
			wantErr: ".ssh/id_rsa is protected (operator secrets under ~/.ssh): talon never lets a tool read it"},
		{name: "read private key absolute", tool: "file_read", args: map[string]any{"path": filepath.Join(f.home, ".ssh", "id_rsa")},
			wantErr: "is protected (operator secrets under ~/.ssh)"},
		{name: "read private key unclean", tool: "file_read", args: map[string]any{"path": "notes/../.ssh//id_rsa"},
			wantErr: "is protected"},
		{name: "read aws credentials", tool: "file_read", args: map[string]any{"path": ".aws/credentials"},
			wantErr: "is protected (operator secrets under ~/.aws)"},
		{name: "read signing key", tool: "file_read", args: map[string]any{"path": ".local/share/talon/keys/receipts.key"},
			wantErr: "is protected (talon's data"},
		{name: "read config", tool: "file_read", args: map[string]any{"path": "talon.toml"},
			wantErr: "talon.toml is protected (talon's configuration file"},
		{name: "search keys", tool: "content_search", args: map[string]any{"pattern": "KEY[D]ATA|SIGNING[K]EY|super[v]ised"},
			hidden: []string{"KEYDATA", "SIGNINGKEY", "supervised"}},
		{name: "search the ssh directory", tool: "content_search", args: map[string]any{"pattern": "KEY", "path": ".ssh"},
			wantErr: "is protected"},
		{name: "search the key itself", tool: "content_search", args: map[string]any{"pattern": "KEY", "path": ".ssh/id_rsa"},
			wantErr: "is protected"},
		{name: "glob everything", tool: "glob_search", args: map[string]any{"pattern": "**"},
			hidden: []string{"id_rsa", "receipts.key", "talon.toml", "credentials"}},
		{name: "glob the data dir", tool: "glob_search", args: map[string]any{"pattern": "**", "path": ".local/share/talon"},
			wantErr: "is protected"},
		{name: "rewrite config", tool: "file_write", args: map[string]any{"path": "talon.toml", "content": "[risk_profiles.default]\nlevel = \"full\"\n"},
			wantErr: "talon.toml is protected (talon's configuration file: a tool that changes it changes its own policy): talon never lets a tool change it"},
		{name: "edit config", tool: "file_edit", args: map[string]any{"path": "talon.toml", "old_string": "supervised", "new_string": "full"},
			wantErr: "is protected"},
		{name: "plant a key", tool: "file_write", args: map[string]any{"path": ".ssh/authorized_keys", "content": "ssh-ed25519 AAAA"},
			wantErr: "is protected"},
		{name: "plant a hook", tool: "file_write", args: map[string]any{"path": ".git/hooks/pre-commit", "content": "#!/bin/sh\ncurl evil\n"},
			wantErr: ".git/hooks/pre-commit is write-protected (git runs programs named there outside the sandbox the next time you use git): talon never lets a tool change it"},
		{name: "rewrite git config", tool: "file_write", args: map[string]any{"path": ".git/config", "content": "[core]\n\tfsmonitor = evil\n"},
			wantErr: "is write-protected"},
		{name: "edit git config", tool: "file_edit", args: map[string]any{"path": ".git/config", "old_string": "bare = false", "new_string": "fsmonitor = evil"},
			wantErr: "is write-protected"},
		{name: "replace .git with a gitdir file", tool: "file_write", args: map[string]any{"path": "sub/.git", "content": "gitdir: /tmp/evil\n"},
			wantErr: "is write-protected"},
		{name: "nested repository hook", tool: "file_write", args: map[string]any{"path": "vendor/x/.git/hooks/post-checkout", "content": "x"},
			wantErr: "is write-protected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, _ := json.Marshal(tt.args)
			res := call(t, f.tool(t, tt.tool), string(raw))
			text := res.Output.Text + res.Error
			if tt.wantErr != "" {
				if res.Success || !strings.Contains(res.Error, tt.wantErr) {
					t.Fatalf("success=%v, text %q\nwant a failure containing %q", res.Success, text, tt.wantErr)
				}
			} else if !res.Success {
				t.Fatalf("failed: %s", res.Error)
			}
			for _, h := range append(tt.hidden, "KEYDATA", "SIGNINGKEY") {
				if strings.Contains(text, h) {
					t.Errorf("result shows %q:\n%s", h, text)
				}
			}
		})
	}
	if b, _ := os.ReadFile(f.config); string(b) != configText {
		t.Errorf("talon.toml changed: %q", b)
	}
	for _, p := range []string{".git/hooks/pre-commit", ".ssh/authorized_keys", "sub/.git", "vendor/x/.git/hooks/post-checkout"} {
		if _, err := os.Lstat(filepath.Join(f.home, p)); err == nil {
			t.Errorf("%s was created", p)
		}
	}
	// Reading a repository's files stays possible.
	res := call(t, f.tool(t, "file_read"), `{"path":".git/config"}`)
	if !res.Success || !strings.Contains(res.Output.Text, "bare = false") {
		t.Errorf("file_read .git/config: %s %s", res.Output.Text, res.Error)
	}
}

// TestForbiddenPathsEveryTool: forbidden_paths patterns, relative to the
// workspace, absolute or under ~/, hold for every file tool: reads and
// writes are refused naming the pattern, listings and searches leave the
// matches out and say how many. Before, relative patterns never matched
// and only file_read and apply_patch honoured absolute ones.
func TestForbiddenPathsEveryTool(t *testing.T) {
	f := newHomeFixture(t)
	mustWrite(t, filepath.Join(f.home, "proj", "secrets", "db.txt"), "PASSWORD=1\n")
	mustWrite(t, filepath.Join(f.home, "proj", "keys", "a.pem"), "PASSWORD pem\n")
	mustWrite(t, filepath.Join(f.home, "proj", "private", "p.txt"), "PASSWORD private\n")
	mustWrite(t, filepath.Join(f.home, "proj", "ok.txt"), "PASSWORD is not here\n")
	f.env.Workspace = filepath.Join(f.home, "proj")
	settings := tool.ProfileSettings{Name: "p", ForbiddenPaths: []string{
		"secrets/**",                             // relative to the workspace
		"**/*.pem",                               // relative, at any depth
		filepath.Join(f.home, "proj", "private"), // absolute, a directory
		"~/proj/ok.txt.bak",                      // under ~/, nothing there yet
	}}
	profiled := func(t *testing.T, name string) tool.Tool {
		t.Helper()
		tl := f.tool(t, name)
		pt, ok := tl.(tool.Profiled)
		if !ok {
			t.Fatalf("%s does not take a profile's forbidden_paths", name)
		}
		v, err := pt.ForProfile(settings)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		tool    string
		args    map[string]any
		wantErr string
		want    string // the text of a success, or a part of it
	}{
		{tool: "file_read", args: map[string]any{"path": "secrets/db.txt"}, wantErr: `secrets/db.txt is a forbidden path (pattern "secrets/**")`},
		{tool: "file_read", args: map[string]any{"path": "keys/a.pem"}, wantErr: `pattern "**/*.pem"`},
		{tool: "file_read", args: map[string]any{"path": "private/p.txt"}, wantErr: "is a forbidden path"},
		{tool: "file_read", args: map[string]any{"path": "ok.txt"}, want: "PASSWORD is not here"},
		{tool: "file_write", args: map[string]any{"path": "secrets/new.txt", "content": "x"}, wantErr: "is a forbidden path"},
		{tool: "file_write", args: map[string]any{"path": "ok.txt.bak", "content": "x"}, wantErr: `pattern "~/proj/ok.txt.bak"`},
		{tool: "file_edit", args: map[string]any{"path": "private/p.txt", "old_string": "PASSWORD", "new_string": "x"}, wantErr: "is a forbidden path"},
		{tool: "content_search", args: map[string]any{"pattern": "PASSWORD"}, want: "ok.txt:1:PASSWORD is not here\n\n(3 paths left out: protected or forbidden by policy)"},
		{tool: "content_search", args: map[string]any{"pattern": "PASSWORD", "path": "secrets"}, wantErr: "is a forbidden path"},
		{tool: "content_search", args: map[string]any{"pattern": "PASSWORD", "path": "keys/a.pem"}, wantErr: "is a forbidden path"},
		{tool: "glob_search", args: map[string]any{"pattern": "**/*.txt"}, want: "ok.txt\n\n(2 paths left out: protected or forbidden by policy)"},
		{tool: "glob_search", args: map[string]any{"pattern": "**", "path": "private"}, wantErr: "is a forbidden path"},
	}
	for _, tt := range tests {
		raw, _ := json.Marshal(tt.args)
		t.Run(tt.tool+" "+string(raw), func(t *testing.T) {
			res := call(t, profiled(t, tt.tool), string(raw))
			text := res.Output.Text + res.Error
			if tt.wantErr != "" {
				if res.Success || !strings.Contains(res.Error, tt.wantErr) {
					t.Fatalf("success=%v, text %q\nwant a failure containing %q", res.Success, text, tt.wantErr)
				}
				return
			}
			if !res.Success || !strings.Contains(res.Output.Text, tt.want) {
				t.Fatalf("success=%v, text %q\nwant %q", res.Success, text, tt.want)
			}
		})
	}
	if _, err := os.Lstat(filepath.Join(f.home, "proj", "secrets", "new.txt")); err == nil {
		t.Error("secrets/new.txt was created")
	}
}
