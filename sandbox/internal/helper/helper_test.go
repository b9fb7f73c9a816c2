package helper

import (
	"reflect"
	"testing"
)

func TestArgsRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		spec Spec
	}{
		{name: "empty", spec: Spec{}},
		{name: "full", spec: Spec{
			WS: "/w", Read: []string{"/usr", "/etc"}, Write: []string{"/data"}, Deny: []string{"/w/.ssh"},
			Ports: []int{443, 8080}, Bind: true, Lim: Limits{CPUSeconds: 10, MemoryMB: 512, Processes: 64, OpenFiles: 256},
			Tmp: "/tmp/x", Exe: "/usr/bin/rg", Devices: []string{"/dev/null"},
			NS: true, Protect: []string{"/w/.git/config"}, UDP: true, Death: 3, Probe: true, Child: true,
		}},
		{name: "paths that look like flags", spec: Spec{Read: []string{"--", "-b"}, Exe: "-x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append(tt.spec.Args(), "/bin/true", "true")
			got, rest, err := Parse(args)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.spec) {
				t.Errorf("Parse = %+v, want %+v", got, tt.spec)
			}
			if !reflect.DeepEqual(rest, []string{"/bin/true", "true"}) {
				t.Errorf("rest = %q", rest)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	for _, args := range [][]string{nil, {"-r"}, {"-p", "x", "--"}, {"-zz", "1", "--"}, {"-r", "/usr"}, {"-cpu", "9999999999", "--"}} {
		if _, _, err := Parse(args); err == nil {
			t.Errorf("Parse(%q) succeeded", args)
		}
	}
}

func TestWithin(t *testing.T) {
	tests := []struct {
		p, dir string
		want   bool
	}{
		{"/a/b", "/a", true}, {"/a", "/a", true}, {"/ab", "/a", false}, {"/a/b", "/a/", true},
		{"/x", "/", true}, {"/a", "/a/b", false},
	}
	for _, tt := range tests {
		if got := Within(tt.p, tt.dir); got != tt.want {
			t.Errorf("Within(%q, %q) = %v", tt.p, tt.dir, got)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add("-r\x00/usr\x00-p\x0080\x00--\x00/bin/true")
	f.Fuzz(func(t *testing.T, s string) {
		var args []string
		start := 0
		for i := 0; i <= len(s); i++ {
			if i == len(s) || s[i] == 0 {
				args = append(args, s[start:i])
				start = i + 1
			}
		}
		_, _, _ = Parse(args)
	})
}
