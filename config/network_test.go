package config

import (
	"strings"
	"testing"
)

func TestNetworkRulesValidated(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{name: "good rules", src: "[tools.web_fetch]\nallowed_domains = [\"*.example.com\", \"api.github.com\"]\nallow_private = [\"10.0.0.0/8\"]\n"},
		{name: "bad cidr", src: "[tools.http_request]\nallow_private = [\"10.0.0.0/99\"]\n", want: "tools.http_request"},
		{name: "negative bytes", src: "[tools.web_fetch]\nmax_bytes = -1\n", want: "tools.web_fetch.max_bytes"},
		{name: "secrets table", src: "[tools.http_request]\nallowed_domains = [\"api.github.com\"]\nsecrets = { GITHUB = \"${GITHUB_TOKEN}\" }\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Parse("talon.toml", []byte(tt.src))
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to name %q", err, tt.want)
			}
		})
	}
}
