package process

import (
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/plugins"
	"github.com/talonhq/talon/plugins/manifest"
	pb "github.com/talonhq/talon/plugins/proto"
	"github.com/talonhq/talon/tool"
)

// FuzzResult feeds arbitrary bytes as a plugin's result document: the
// host must never panic, and must either fail with an error naming the
// plugin or produce a result that follows the tool contract.
func FuzzResult(f *testing.F) {
	for _, s := range []string{
		`{"content":[{"type":"text","text":"hi"}],"isError":false}`,
		`{"content":[],"structuredContent":{"a":[1,2]},"isError":false}`,
		`{"content":[{"type":"text","text":""}],"isError":true}`,
		`{"content": [not json`, `null`, `[]`, `""`, `{"structuredContent":null}`,
	} {
		f.Add([]byte(s))
	}
	p := &manifest.Plugin{Manifest: manifest.Manifest{Name: "fuzz", Limits: manifest.Limits{MaxOutputBytes: 1 << 16}}}
	pt := &pluginTool{inst: newInstance(Host{}, p, pluginsEnv()), spec: specFor("t")}
	f.Fuzz(func(t *testing.T, raw []byte) {
		r, err := pt.result(&pb.CallResponse{Result: raw})
		if err != nil {
			if !strings.Contains(err.Error(), "process.fuzz") {
				t.Fatalf("error does not name the plugin: %v", err)
			}
			return
		}
		if !r.Success && r.Error == "" {
			t.Fatalf("failed result without text: %+v", r)
		}
	})
}

// FuzzLineLog feeds arbitrary plugin output to the re-logger: every
// write is accepted, and no logged line is longer than the cut.
func FuzzLineLog(f *testing.F) {
	f.Add([]byte("plain line\n{\"level\":\"warn\",\"msg\":\"w\",\"k\":1}\n"), 3)
	f.Add([]byte(strings.Repeat("x", maxLogLine+10)+"\nnext"), 1)
	f.Add([]byte("{\"@level\":\"error\",\"@message\":\"m\"}\r\n"), 7)
	f.Fuzz(func(t *testing.T, data []byte, split int) {
		var out logBuf
		l := newLineLog(zerolog.New(&out), "stderr")
		if split <= 0 {
			split = 1
		}
		for len(data) > 0 {
			n := min(split, len(data))
			if w, err := l.Write(data[:n]); w != n || err != nil {
				t.Fatalf("write %d = %d, %v", n, w, err)
			}
			data = data[n:]
		}
		l.Flush()
		for _, line := range strings.Split(out.String(), "\n") {
			if len(line) > 8*maxLogLine {
				t.Fatalf("logged a %d-byte line", len(line))
			}
		}
	})
}

func pluginsEnv() plugins.Env { return plugins.Env{Logger: zerolog.Nop()} }

func specFor(name string) tool.Spec { return tool.Spec{Name: name} }
