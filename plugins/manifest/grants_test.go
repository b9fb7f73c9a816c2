package manifest

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/tool"
)

func TestIntersectHosts(t *testing.T) {
	tests := []struct {
		name               string
		requested, granted []string
		want               []string
	}{
		{"exact", []string{"api.example.com"}, []string{"api.example.com"}, []string{"api.example.com"}},
		{"not granted", []string{"api.example.com"}, []string{"other.example.com"}, nil},
		{"granted pattern covers request", []string{"api.example.com"}, []string{"*.example.com"}, []string{"api.example.com"}},
		{"granted host under requested pattern", []string{"*.example.com"}, []string{"api.example.com"}, []string{"api.example.com"}},
		{"narrower granted pattern", []string{"*.example.com"}, []string{"*.eu.example.com"}, []string{"*.eu.example.com"}},
		{"wider granted pattern", []string{"*.eu.example.com"}, []string{"*.example.com"}, []string{"*.eu.example.com"}},
		{"star grants only requested", []string{"api.example.com", "*.example.org"}, []string{"*"}, []string{"*.example.org", "api.example.com"}},
		{"pattern does not cover apex", []string{"example.com"}, []string{"*.example.com"}, nil},
		{"pattern does not match suffix text", []string{"badexample.com"}, []string{"*.example.com"}, nil},
		{"nothing requested", nil, []string{"*"}, nil},
		{"duplicates collapse", []string{"api.example.com", "api.example.com"}, []string{"api.example.com", "*.example.com"}, []string{"api.example.com"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := intersectHosts(tt.requested, tt.granted); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestResolveGrants(t *testing.T) {
	ws := t.TempDir()
	real, _ := filepath.EvalSymlinks(ws)
	outside := t.TempDir()
	for _, d := range []string{"data/sub", "out", "docs"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(ws, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(ws, "docs"), filepath.Join(ws, "docs-link")); err != nil {
		t.Fatal(err)
	}
	m := &Manifest{Name: "hello", Permissions: Permissions{
		HTTP:       HTTPPermissions{AllowedHosts: []string{"api.example.com"}},
		FSRead:     []string{"data", "docs-link", "escape", "new/dir"},
		FSWrite:    []string{"out"},
		Secrets:    []string{"TOKEN", "OTHER"},
		ConfigRead: []string{"greeting", "units"},
	}}
	abs := func(p string) string { return filepath.Join(real, p) }
	tests := []struct {
		name  string
		m     *Manifest
		entry *config.PluginEntry
		want  Grants
		err   string
	}{
		{name: "nil entry grants nothing", entry: nil, want: Grants{}},
		{name: "empty entry grants nothing", entry: &config.PluginEntry{Name: "hello"}, want: Grants{}},
		{name: "narrower granted root", entry: &config.PluginEntry{FSRead: []string{"data/sub"}},
			want: Grants{FSRead: []string{abs("data/sub")}}},
		{name: "narrower requested root", entry: &config.PluginEntry{FSRead: []string{"."}},
			err: "outside the workspace"},
		{name: "whole workspace granted, safe request", m: &Manifest{Name: "hello", Permissions: Permissions{FSRead: []string{"data", "docs-link"}}},
			entry: &config.PluginEntry{FSRead: []string{"."}},
			want:  Grants{FSRead: []string{abs("data"), abs("docs")}}},
		{name: "absolute grant inside workspace", entry: &config.PluginEntry{FSWrite: []string{filepath.Join(ws, "out")}},
			want: Grants{FSWrite: []string{abs("out")}}},
		{name: "absolute grant outside workspace", entry: &config.PluginEntry{FSRead: []string{outside}}, err: "outside the workspace"},
		{name: "grant with dotdot", entry: &config.PluginEntry{FSRead: []string{"../x"}}, err: `".."`},
		{name: "unrelated roots", entry: &config.PluginEntry{FSRead: []string{"elsewhere"}}, want: Grants{}},
		{name: "root that does not exist yet", entry: &config.PluginEntry{FSRead: []string{"new"}},
			want: Grants{FSRead: []string{abs("new/dir")}}},
		{name: "write is not read", entry: &config.PluginEntry{FSWrite: []string{"data"}}, want: Grants{}},
		{name: "secrets intersect", entry: &config.PluginEntry{Secrets: []string{"TOKEN", "NOT_REQUESTED"}},
			want: Grants{Secrets: []string{"TOKEN"}}},
		{name: "config keys intersect with values", entry: &config.PluginEntry{Config: map[string]any{"greeting": "hi", "secret_knob": 1}},
			want: Grants{Config: map[string]any{"greeting": "hi"}}},
		{name: "host", entry: &config.PluginEntry{AllowedHosts: []string{"*"}}, want: Grants{AllowedHosts: []string{"api.example.com"}}},
		{name: "allow_private with a host", entry: &config.PluginEntry{AllowedHosts: []string{"api.example.com"}, AllowPrivate: []string{"10.0.0.0/8"}},
			want: Grants{AllowedHosts: []string{"api.example.com"}, AllowPrivate: []string{"10.0.0.0/8"}}},
		{name: "allow_private without a host grants nothing", entry: &config.PluginEntry{AllowPrivate: []string{"10.0.0.0/8"}}, want: Grants{}},
		{name: "bad granted host", entry: &config.PluginEntry{AllowedHosts: []string{"https://x"}}, err: "drop the scheme"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mm := tt.m
			if mm == nil {
				mm = m
			}
			g, err := ResolveGrants(mm, tt.entry, ws)
			if tt.err != "" {
				if err == nil || !errors.Is(err, ErrGrant) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(g, tt.want) {
				t.Fatalf("got %+v\nwant %+v", g, tt.want)
			}
		})
	}
}

func TestResolveGrantsConfigSchema(t *testing.T) {
	m := &Manifest{Name: "hello", Permissions: Permissions{ConfigRead: []string{"units"}},
		ConfigSchema: map[string]any{
			"type":       "object",
			"properties": map[string]any{"units": map[string]any{"type": "string", "enum": []any{"metric", "imperial"}}},
			"required":   []any{"units"},
		}}
	if _, err := ResolveGrants(m, &config.PluginEntry{Config: map[string]any{"units": "kelvin"}}, t.TempDir()); err == nil ||
		!strings.Contains(err.Error(), "config_schema") {
		t.Fatalf("invalid value: %v", err)
	}
	if _, err := ResolveGrants(m, &config.PluginEntry{}, t.TempDir()); err == nil {
		t.Fatal("missing required value accepted")
	}
	g, err := ResolveGrants(m, &config.PluginEntry{Config: map[string]any{"units": "metric"}}, t.TempDir())
	if err != nil || g.Config["units"] != "metric" {
		t.Fatalf("valid config: %+v, %v", g, err)
	}
	broken := &Manifest{Name: "x", ConfigSchema: map[string]any{"type": "array"}}
	if _, err := ResolveGrants(broken, &config.PluginEntry{}, t.TempDir()); err == nil || !strings.Contains(err.Error(), "cannot use") {
		t.Fatalf("unusable schema: %v", err)
	}
}

func TestRequestedGrants(t *testing.T) {
	ws := t.TempDir()
	real, _ := filepath.EvalSymlinks(ws)
	m := &Manifest{Name: "hello", Permissions: Permissions{
		HTTP: HTTPPermissions{AllowedHosts: []string{"*.example.com"}}, FSWrite: []string{"out"},
		Secrets: []string{"T"}, ConfigRead: []string{"k"}}}
	g, err := RequestedGrants(m, &config.PluginEntry{Config: map[string]any{"k": 1}}, ws)
	if err != nil {
		t.Fatal(err)
	}
	want := Grants{AllowedHosts: []string{"*.example.com"}, FSWrite: []string{filepath.Join(real, "out")},
		Secrets: []string{"T"}, Config: map[string]any{"k": 1}}
	if !reflect.DeepEqual(g, want) {
		t.Fatalf("got %+v", g)
	}
}

func TestTierFloor(t *testing.T) {
	tests := []struct {
		name string
		g    Grants
		want tool.Tier
	}{
		{"nothing", Grants{}, tool.Low},
		{"read", Grants{FSRead: []string{"/w/a"}}, tool.Low},
		{"config", Grants{Config: map[string]any{"a": 1}}, tool.Low},
		{"http", Grants{AllowedHosts: []string{"a.example"}}, tool.Medium},
		{"secrets", Grants{Secrets: []string{"T"}}, tool.Medium},
		{"write", Grants{FSWrite: []string{"/w/o"}}, tool.High},
		{"write and http", Grants{FSWrite: []string{"/w/o"}, AllowedHosts: []string{"a"}}, tool.High},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.g.TierFloor(); got != tt.want {
				t.Fatalf("TierFloor = %s, want %s", got, tt.want)
			}
		})
	}
}
