package config

import (
	"slices"
	"strings"
	"testing"
)

func TestExpandVars(t *testing.T) {
	env := map[string]string{"API_TOKEN": "t0k", "EMPTY": "", "USER_1": "op"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	tests := []struct {
		name    string
		in      string
		want    string
		parts   []string
		wantErr string
	}{
		{name: "none", in: "plain text $HOME", want: "plain text $HOME"},
		{name: "one", in: "Bearer ${API_TOKEN}", want: "Bearer t0k", parts: []string{"t0k"}},
		{name: "two and empty", in: "${USER_1}:${EMPTY}:${API_TOKEN}", want: "op::t0k", parts: []string{"op", "", "t0k"}},
		{name: "unset", in: "x ${NOT_SET_HERE}", wantErr: "NOT_SET_HERE is not set"},
		{name: "unclosed", in: "x ${API_TOKEN", wantErr: "no closing"},
		{name: "bad name", in: "${1X}", wantErr: "letters, digits and _"},
		{name: "literal secret stays out of errors", in: "hunter2 ${BAD-NAME}", wantErr: "must hold"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, parts, err := ExpandVars(tt.in, lookup)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || strings.Contains(err.Error(), "hunter2") {
					t.Fatalf("ExpandVars(%q) = %q, %v; want an error with %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want || !slices.Equal(parts, tt.parts) {
				t.Fatalf("ExpandVars(%q) = %q, %q, %v; want %q, %q", tt.in, got, parts, err, tt.want, tt.parts)
			}
		})
	}
}

func TestExpandVarsNilLookupReadsTheEnvironment(t *testing.T) {
	t.Setenv("TALON_EXPAND_TEST", "from-env")
	got, _, err := ExpandVars("${TALON_EXPAND_TEST}", nil)
	if err != nil || got != "from-env" {
		t.Fatalf("ExpandVars = %q, %v", got, err)
	}
}
