package cli

import (
	"errors"
	"strings"
	"testing"
)

func TestRemoveEntry(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		plugin  string
		want    string // the result, or a substring of the error
		wantErr bool
	}{
		{
			name: "the one entry, its config table and a blank line",
			src: "schema_version = 1\n\n# plugins are on\n[plugins]\nenabled = true\n\n# the greeter\n[[plugins.entries]]\nname = \"hello\" # mine\n" +
				"enabled = true\n[plugins.entries.config]\ngreeting = \"hi\"\n\n# the end\n",
			plugin: "hello",
			want:   "schema_version = 1\n\n# plugins are on\n[plugins]\nenabled = true\n\n# the greeter\n# the end\n",
		},
		{
			name: "the middle one of three",
			src: "schema_version = 1\n[[plugins.entries]]\nname = \"a\"\n\n[[plugins.entries]]\nname = \"b\"\nrename = { reverse = \"b_reverse\" }\n" +
				"config = { k = 1 }\n\n[[plugins.entries]]\nname = \"c\"\n",
			plugin: "b",
			want:   "schema_version = 1\n[[plugins.entries]]\nname = \"a\"\n\n[[plugins.entries]]\nname = \"c\"\n",
		},
		{
			name:   "the last one, then another table",
			src:    "schema_version = 1\n[[plugins.entries]]\nname = \"a\"\nallowed_hosts = [\n  \"x.example.com\",\n]\n[sandbox]\nmode = \"off\"\n",
			plugin: "a",
			want:   "schema_version = 1\n[sandbox]\nmode = \"off\"\n",
		},
		{
			name:    "no such entry",
			src:     "schema_version = 1\n[[plugins.entries]]\nname = \"a\"\n",
			plugin:  "b",
			want:    "no [[plugins.entries]] table names \"b\"",
			wantErr: true,
		},
		{
			name:    "inline array refused",
			src:     "schema_version = 1\n[plugins]\nentries = [{ name = \"hello\" }]\n",
			plugin:  "hello",
			want:    "inline array",
			wantErr: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := removeEntry("talon.toml", []byte(tt.src), tt.plugin)
			if tt.wantErr {
				if err == nil || !errors.Is(err, errEntryNotEditable) || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("err = %v, want %q", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tt.want {
				t.Fatalf("got\n%s\nwant\n%s", out, tt.want)
			}
		})
	}
}
