package process

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
	plugin "github.com/hashicorp/go-plugin"

	"github.com/talonhq/talon/plugins/manifest"
	pb "github.com/talonhq/talon/plugins/proto"
)

// benchArgs is the payload of both round trips: about 1 KiB of JSON.
var benchArgs = json.RawMessage(`{"text":"` + strings.Repeat("a", 1000) + `"}`)

// BenchmarkCall compares one call through the host (semaphore, process
// lifecycle, deadline, result decoding and checks) with a bare go-plugin
// gRPC round trip to the same plugin with the same payload. Target:
// talon ≤ 1.2× bare.
func BenchmarkCall(b *testing.B) {
	bin := misbehave(b)
	ctx := context.Background()
	b.Run("bare", func(b *testing.B) {
		cmd := exec.Command(bin)
		cmd.Env = []string{pb.EnvPluginName + "=bench"}
		c := plugin.NewClient(&plugin.ClientConfig{
			HandshakeConfig:  pb.Handshake,
			VersionedPlugins: map[int]plugin.PluginSet{pb.Version: {pb.PluginName: grpcPlugin{}}},
			Cmd:              cmd,
			AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
			AutoMTLS:         true,
			SkipHostEnv:      true,
			Logger:           hclog.NewNullLogger(),
		})
		defer c.Kill()
		cp, err := c.Client()
		if err != nil {
			b.Fatal(err)
		}
		raw, err := cp.Dispense(pb.PluginName)
		if err != nil {
			b.Fatal(err)
		}
		rpc := raw.(pb.ToolsClient)
		b.ResetTimer()
		for b.Loop() {
			resp, err := rpc.Call(ctx, &pb.CallRequest{CallId: "b", Tool: "bench", Arguments: benchArgs, Config: []byte(`{}`)})
			if err != nil || len(resp.GetResult()) == 0 {
				b.Fatal(err)
			}
		}
	})
	b.Run("talon", func(b *testing.B) {
		f := mustLoad(b, "bench", manifest.Limits{})
		t := find(f.loaded, "bench")
		if _, err := t.Execute(ctx, benchArgs); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for b.Loop() {
			r, err := t.Execute(ctx, benchArgs)
			if err != nil || !r.Success {
				b.Fatal(err, r.Error)
			}
		}
	})
}

// BenchmarkStart measures starting a plugin process through the host up
// to a completed handshake, with and without automatic mutual TLS.
func BenchmarkStart(b *testing.B) {
	for _, tt := range []struct {
		name string
		host Host
	}{{"plain", Host{NoAutoMTLS: true}}, {"automtls", Host{}}} {
		b.Run(tt.name, func(b *testing.B) {
			p, err := pluginFor(misbehave(b), "start", manifest.Limits{})
			if err != nil {
				b.Fatal(err)
			}
			f, err := load(b, tt.host, p, b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			b.ResetTimer()
			for b.Loop() {
				if _, err := f.inst.acquire(ctx); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				f.inst.release()
				f.inst.stop()
				b.StartTimer()
			}
		})
	}
}
