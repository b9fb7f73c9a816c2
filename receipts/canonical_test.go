package receipts

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestCanonicalArgs(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
		err  error
	}{
		{name: "empty", in: "", want: "{}"},
		{name: "null", in: " null ", want: "{}"},
		{name: "sorted, no whitespace", in: `{ "b": 1, "a": [ true, null ] }`, want: `{"a":[true,null],"b":1}`},
		{name: "numbers in shortest form", in: `{"x":1.50e1,"y":-0.0,"z":1e21,"w":0.000001}`, want: `{"w":0.000001,"x":15,"y":0,"z":1e+21}`},
		{name: "UTF-16 key order", in: `{"\u20ac":1,"\ud83d\ude00":2,"a":3}`, want: "{\"a\":3,\"€\":1,\"😀\":2}"},
		{name: "escapes", in: `{"s":"\u0041\/\u001f\u007f"}`, want: "{\"s\":\"A/\\u001f\x7f\"}"},
		{name: "array", in: `[1]`, err: ErrInvalidArgs},
		{name: "string", in: `"x"`, err: ErrInvalidArgs},
		{name: "truncated", in: `{"a":`, err: ErrInvalidArgs},
		{name: "duplicate key", in: `{"a":1,"a":1}`, err: ErrInvalidArgs},
		{name: "lone surrogate", in: `{"a":"\ud800"}`, err: ErrInvalidArgs},
		{name: "invalid UTF-8", in: "{\"a\":\"\xff\"}", err: ErrInvalidArgs},
		{name: "trailing data", in: `{} {}`, err: ErrInvalidArgs},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CanonicalArgs(json.RawMessage(tt.in))
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("err = %v, want %v", err, tt.err)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("got %s, %v; want %s", got, err, tt.want)
			}
		})
	}
}

func TestRedactArgs(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"nothing secret", `{"path":"a"}`, `{"path":"a"}`},
		{"any case, any part of the name", `{"APIKey":"1","my_Token":"2","passwordHint":"3","clientSecret":"4"}`,
			`{"APIKey":"[REDACTED]","clientSecret":"[REDACTED]","my_Token":"[REDACTED]","passwordHint":"[REDACTED]"}`},
		{"whole subtree", `{"keys":{"a":[1,2]}}`, `{"keys":"[REDACTED]"}`},
		{"inside arrays", `{"l":[{"token":1},{"x":{"secret":null}}]}`, `{"l":[{"token":"[REDACTED]"},{"x":{"secret":"[REDACTED]"}}]}`},
		{"values are not inspected", `{"cmd":"curl -H token:abc"}`, `{"cmd":"curl -H token:abc"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := CanonicalArgs(json.RawMessage(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			got, err := RedactArgs(c)
			if err != nil || string(got) != tt.want {
				t.Fatalf("got %s, %v; want %s", got, err, tt.want)
			}
		})
	}
}

func TestNewID(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	a, err := newID(at, seededRand("a"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := newID(at.Add(time.Millisecond), seededRand("a"))
	if !validID(a) || !validID(b) || a >= b {
		t.Fatalf("ids %s, %s: want valid and ordered by time", a, b)
	}
	// The first 10 characters encode the milliseconds.
	if zero, _ := newID(time.UnixMilli(0), seededRand("z")); !strings.HasPrefix(zero, "0000000000") {
		t.Errorf("id at the epoch: %s", zero)
	}
	for _, bad := range []string{"", "8ZZZZZZZZZZZZZZZZZZZZZZZZZ", "01KJMMA2KVYXG1Z73DH4GR9X6I", "01kjmma2kvyxg1z73dh4gr9x6w"} {
		if validID(bad) {
			t.Errorf("validID(%q) = true", bad)
		}
	}
}

func TestPublicKeyText(t *testing.T) {
	k := newSigningKey(make([]byte, 32))
	line := FormatPublicKey(k.pub)
	tests := []struct {
		name string
		in   string
		ok   bool
	}{
		{"as written", line, true},
		{"without the comment", strings.Join(strings.Fields(line)[:3], " "), true},
		{"surrounding space", "  " + line + "  ", true},
		{"another tag", strings.Replace(line, "v1", "v2", 1), false},
		{"another algorithm", strings.Replace(line, "ed25519", "rsa", 1), false},
		{"short key", "talon-receipt-key-v1 ed25519 AAAA", false},
		{"empty", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pub, err := ParsePublicKey(tt.in)
			if tt.ok != (err == nil) {
				t.Fatalf("err = %v", err)
			}
			if tt.ok && !pub.Equal(k.pub) {
				t.Fatal("decoded another key")
			}
			if !tt.ok && !errors.Is(err, ErrInvalidKey) {
				t.Fatalf("err = %v, want ErrInvalidKey", err)
			}
		})
	}
	keys, err := parsePublicKeys([]byte("# keys\n\n"+line+"\n"), "f")
	if err != nil || len(keys) != 1 {
		t.Fatalf("file with a comment: %v, %v", keys, err)
	}
	if _, err := parsePublicKeys([]byte("# nothing\n"), "f"); !errors.Is(err, ErrInvalidKey) {
		t.Fatalf("file without keys: %v", err)
	}
	if KeyID(k.pub) != k.id || len(k.id) != 16 {
		t.Fatalf("key id %q", k.id)
	}
}
