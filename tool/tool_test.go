package tool

import (
	"errors"
	"strings"
	"testing"
)

func TestValidateName(t *testing.T) {
	tests := []struct {
		name string
		in   string
		ok   bool
	}{
		{name: "simple", in: "file_read", ok: true},
		{name: "dash and digits", in: "tool__rg-2", ok: true},
		{name: "64 chars", in: strings.Repeat("a", 64), ok: true},
		{name: "65 chars", in: strings.Repeat("a", 65)},
		{name: "empty", in: ""},
		{name: "dot", in: "my.tool"},
		{name: "space", in: "my tool"},
		{name: "unicode", in: "ツール"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateName(tt.in)
			if (err == nil) != tt.ok {
				t.Fatalf("ValidateName(%q) = %v, want ok=%v", tt.in, err, tt.ok)
			}
		})
	}
}

func TestSanitizeName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"tool__my.tool", "tool__my_tool"},
		{"a b/c", "a_b_c"},
		{"ok-name_1", "ok-name_1"},
		{"é", "_"},
	}
	for _, tt := range tests {
		if got := SanitizeName(tt.in); got != tt.want {
			t.Errorf("SanitizeName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	long := SanitizeName(strings.Repeat("x", 70))
	if len(long) != 70 || ValidateName(long) == nil {
		t.Errorf("SanitizeName must never truncate; got len %d", len(long))
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct {
		name        string
		in          Result
		err         error
		wantSuccess bool
		wantText    string
		wantErrSub  string
	}{
		{name: "empty success", in: Result{Success: true}, wantSuccess: true, wantText: NoOutput},
		{name: "blank success", in: Text("  \n"), wantSuccess: true, wantText: NoOutput},
		{name: "data only keeps empty text", in: Result{Success: true, Output: Output{Data: 1}}, wantSuccess: true, wantText: ""},
		{name: "text kept", in: Text("hi"), wantSuccess: true, wantText: "hi"},
		{name: "go error names tool", in: Text("ignored"), err: errors.New("boom"), wantErrSub: "tool t failed: boom"},
		{name: "failure without text", in: Result{}, wantErrSub: "tool t failed"},
		{name: "failure kept", in: Failure("bad %d", 1), wantErrSub: "bad 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Normalize("t", tt.in, tt.err)
			if got.Success != tt.wantSuccess {
				t.Fatalf("Success = %v", got.Success)
			}
			if tt.wantSuccess && got.Output.Text != tt.wantText {
				t.Fatalf("Text = %q, want %q", got.Output.Text, tt.wantText)
			}
			if !tt.wantSuccess && !strings.Contains(got.Error, tt.wantErrSub) {
				t.Fatalf("Error = %q, want it to contain %q", got.Error, tt.wantErrSub)
			}
		})
	}
}

func TestTier(t *testing.T) {
	if Tier(0).Effective() != High || Tier(9).Effective() != High {
		t.Fatal("unset or unknown tiers must be treated as high")
	}
	if MaxTier(Low, Medium) != Medium || MaxTier(0, Low) != High {
		t.Fatal("MaxTier")
	}
	for _, tr := range []Tier{Low, Medium, High} {
		b, _ := tr.MarshalText()
		var back Tier
		if err := back.UnmarshalText(b); err != nil || back != tr {
			t.Fatalf("round trip %v: %v %v", tr, back, err)
		}
	}
	if _, err := ParseTier("extreme"); err == nil {
		t.Fatal("ParseTier accepted an unknown tier")
	}
}

func TestAttributionString(t *testing.T) {
	if got := (Attribution{Kind: KindWASM, Alias: "weather"}).String(); got != "wasm.weather" {
		t.Fatal(got)
	}
}
