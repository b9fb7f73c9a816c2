package approval

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/talonhq/talon/tool"
)

func TestTerminalAnswers(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  Answer
	}{
		{name: "yes", input: "y\n", want: Yes},
		{name: "yes word", input: "YES\n", want: Yes},
		{name: "always", input: "a\n", want: Always},
		{name: "no", input: "n\n", want: No},
		{name: "blank is no", input: "\n", want: No},
		{name: "eof is no", input: "", want: No},
		{name: "unclear then yes", input: "maybe\ny\n", want: Yes},
		{name: "three unclear is no", input: "x\nx\nx\ny\n", want: No},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			term := &Terminal{In: strings.NewReader(tt.input), Out: &out}
			got, err := term.Approve(context.Background(), Request{Tool: "file_write", Tier: tool.Medium})
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("answer = %s, want %s", got, tt.want)
			}
			if !strings.Contains(out.String(), "[y]es / [n]o / [a]lways") {
				t.Fatalf("prompt missing: %q", out.String())
			}
		})
	}
}

type blockingReader struct{}

func (blockingReader) Read([]byte) (int, error) { select {} }

func TestTerminalTimeoutFailsClosed(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	var out strings.Builder
	got, err := (&Terminal{In: blockingReader{}, Out: &out}).Approve(ctx, Request{Tool: "x"})
	if got != No || !errors.Is(err, ErrNoApprover) {
		t.Fatalf("got %s, %v", got, err)
	}
}

func TestRenderShowsPlan(t *testing.T) {
	s := Render(Request{
		Tool: "shell", Attribution: "builtin.shell", Tier: tool.High,
		Reasons: []string{`"curl" is high risk`},
		Plan:    &tool.Plan{Summary: "curl -s example.com", Commands: []tool.PlannedCommand{{Argv: []string{"curl", "-s", "example.com"}, Binary: "/usr/bin/curl", Dir: "/ws"}}},
	})
	for _, want := range []string{"builtin.shell", "high", `"curl" is high risk`, `["curl" "-s" "example.com"]`, "/usr/bin/curl", "/ws"} {
		if !strings.Contains(s, want) {
			t.Errorf("render lacks %q:\n%s", want, s)
		}
	}
}

func TestNonInteractiveFailsClosed(t *testing.T) {
	got, err := NonInteractive{}.Approve(context.Background(), Request{})
	if got != No || !errors.Is(err, ErrNoApprover) {
		t.Fatalf("got %s, %v", got, err)
	}
}

func TestRedact(t *testing.T) {
	in := `{"path":"a","api_key":"s1","nested":{"Password":"s2","list":[{"AuthToken":"s3","ok":1}]},"monkey":"s4","text":"` + strings.Repeat("é", 300) + `"}`
	got := Redact(json.RawMessage(in))
	for _, secret := range []string{"s1", "s2", "s3", "s4"} {
		if strings.Contains(got, `"`+secret+`"`) {
			t.Errorf("secret %s leaked: %s", secret, got)
		}
	}
	if !strings.Contains(got, `"path":"a"`) || !strings.Contains(got, `"ok":1`) {
		t.Errorf("ordinary values lost: %s", got)
	}
	if !json.Valid([]byte(got)) {
		t.Errorf("redacted output is not JSON: %s", got)
	}
}

func TestMessagesDoNotNameSettings(t *testing.T) {
	for _, m := range []string{DeniedByUser, DeniedNoApprover} {
		for _, setting := range []string{"auto_approve", "level", "full", "require_approval", "always_ask"} {
			if strings.Contains(m, setting) {
				t.Errorf("%q names %q", m, setting)
			}
		}
	}
}
