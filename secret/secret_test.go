package secret

import (
	"os"
	"slices"
	"testing"
)

func TestIsSecretName(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"GITHUB_TOKEN", true}, {"TALON_SERVE_TOKEN", true}, {"github_token", true}, {"TokenFile", true},
		{"AWS_SECRET_ACCESS_KEY", true}, {"CLIENT_SECRET", true}, {"DB_PASSWORD", true}, {"PGPASSWD", true},
		{"OPENAI_API_KEY", true}, {"BRAVE_APIKEY", true}, {"SSH_PRIVATE_KEY_PATH", true},
		{"GOOGLE_APPLICATION_CREDENTIALS", true}, {"STRIPE_KEY", true}, {"aws_access_key", true},
		{"PATH", false}, {"HOME", false}, {"KEYBOARD", false}, {"KEY", false}, {"MONKEY", false},
		{"SSH_AUTH_SOCK", false}, {"LANG", false}, {"EDITOR", false}, {"", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsSecretName(tt.name); got != tt.want {
				t.Fatalf("IsSecretName(%q) = %v, want %v", tt.name, got, tt.want)
			}
		})
	}
}

func TestOrdinary(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"PATH", true}, {"HOME", true}, {"LC_ALL", true}, {"XDG_DATA_HOME", true}, {"TMPDIR", true},
		{"GITHUB_TOKEN", false}, {"API_HOST", false}, {"home", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Ordinary(tt.name); got != tt.want {
				t.Fatalf("Ordinary(%q) = %v, want %v", tt.name, got, tt.want)
			}
		})
	}
}

func TestReferenced(t *testing.T) {
	type inner struct {
		Headers map[string]string
		hidden  string
	}
	type cfg struct {
		Token   string
		Servers map[string]*inner
		List    []string
		Any     any
		Nil     *inner
		N       int
	}
	v := &cfg{
		Token: "Bearer ${API_TOKEN}",
		Servers: map[string]*inner{
			"a": {Headers: map[string]string{"X-${KEY_IN_KEY}": "${B_1} and ${B_1}"}, hidden: "${HIDDEN}"},
		},
		List: []string{"${LIST}", "${1BAD}", "${not closed", "${}", "$PLAIN", "${HAS SPACE}"},
		Any:  []any{"${IN_ANY}"},
		N:    3,
	}
	want := []string{"API_TOKEN", "B_1", "HIDDEN", "IN_ANY", "KEY_IN_KEY", "LIST"}
	if got := Referenced(v); !slices.Equal(got, want) {
		t.Fatalf("Referenced = %q, want %q", got, want)
	}
	if got := Referenced(nil); len(got) != 0 {
		t.Fatalf("Referenced(nil) = %q", got)
	}
}

func TestLookupBeforeProtect(t *testing.T) {
	t.Setenv("TALON_SECRET_TEST_PLAIN", "v")
	if v, ok := Lookup("TALON_SECRET_TEST_PLAIN"); !ok || v != "v" {
		t.Fatalf("Lookup = %q, %v", v, ok)
	}
	if _, ok := Taken("TALON_SECRET_TEST_PLAIN"); ok {
		t.Fatal("Taken before Protect")
	}
	if _, ok := Lookup("TALON_SECRET_TEST_UNSET"); ok {
		t.Fatal("Lookup found an unset variable")
	}
	if got := Getenv("TALON_SECRET_TEST_PLAIN"); got != "v" {
		t.Fatalf("Getenv = %q", got)
	}
	_ = os.Unsetenv("TALON_SECRET_TEST_PLAIN")
}
