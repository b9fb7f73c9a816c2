// Command misbehave is the test fixture for plugins/process: a plugin
// whose behaviour is chosen by its manifest name (TALON_PLUGIN_NAME) and,
// for well-started plugins, by the tool called.
//
//	noisy      prints to stdout before the handshake
//	silent     never completes the handshake
//	exit       exits before the handshake
//	v99        serves only protocol version 99
//	malformed  serves a raw Tools service whose results are not JSON
//	otherwise  serves the SDK tools below
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"time"

	plugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	pb "github.com/talonhq/talon/plugins/proto"
	"github.com/talonhq/talon/plugins/sdk"
)

var (
	running atomic.Int32
	peak    atomic.Int32
)

func main() {
	switch os.Getenv(pb.EnvPluginName) {
	case "noisy":
		fmt.Println("hello from main before the handshake")
	case "silent":
		time.Sleep(time.Hour)
		return
	case "exit":
		fmt.Fprintln(os.Stderr, "misbehave: cannot start: no configuration")
		os.Exit(3)
	case "v99":
		plugin.Serve(&plugin.ServeConfig{
			HandshakeConfig:  pb.Handshake,
			VersionedPlugins: map[int]plugin.PluginSet{99: {pb.PluginName: &raw{}}},
			GRPCServer:       plugin.DefaultGRPCServer,
		})
		return
	case "malformed":
		plugin.Serve(&plugin.ServeConfig{
			HandshakeConfig:  pb.Handshake,
			VersionedPlugins: map[int]plugin.PluginSet{pb.Version: {pb.PluginName: &raw{}}},
			GRPCServer:       plugin.DefaultGRPCServer,
		})
		return
	}
	sdk.Serve(
		tool("echo", func(_ context.Context, c sdk.Call) (sdk.Result, error) {
			var cfg map[string]any
			_ = c.BindConfig(&cfg)
			wd, _ := os.Getwd()
			var env []string
			for _, kv := range os.Environ() {
				env = append(env, strings.SplitN(kv, "=", 2)[0])
			}
			return sdk.Result{Text: string(c.Args), Data: map[string]any{
				"args": json.RawMessage(c.Args), "config": cfg, "cwd": wd, "env": env, "pid": os.Getpid(),
			}}, nil
		}),
		tool("bench", func(_ context.Context, c sdk.Call) (sdk.Result, error) {
			return sdk.Text(string(c.Args)), nil
		}),
		tool("pid", func(context.Context, sdk.Call) (sdk.Result, error) {
			return sdk.Text(fmt.Sprint(os.Getpid())), nil
		}),
		tool("fail", func(context.Context, sdk.Call) (sdk.Result, error) {
			return sdk.Errorf("the tool failed on purpose"), nil
		}),
		tool("panic", func(context.Context, sdk.Call) (sdk.Result, error) {
			panic("on purpose")
		}),
		tool("crash", func(_ context.Context, c sdk.Call) (sdk.Result, error) {
			c.Logger.Error("crashing on purpose")
			os.Exit(7)
			return sdk.Result{}, nil
		}),
		tool("hang", func(context.Context, sdk.Call) (sdk.Result, error) {
			time.Sleep(time.Hour) // ignores its context and Cancel
			return sdk.Text("woke up"), nil
		}),
		tool("wait", func(ctx context.Context, c sdk.Call) (sdk.Result, error) {
			var in struct {
				MS int `json:"ms"`
			}
			_ = c.Bind(&in)
			n := running.Add(1)
			defer running.Add(-1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			select {
			case <-ctx.Done():
				return sdk.Errorf("cancelled: %v", ctx.Err()), nil
			case <-time.After(time.Duration(in.MS) * time.Millisecond):
			}
			return sdk.Text(fmt.Sprint(peak.Load())), nil
		}),
		tool("flood", func(_ context.Context, c sdk.Call) (sdk.Result, error) {
			line := strings.Repeat("x", 100)
			for i := range 20000 {
				fmt.Fprintf(os.Stderr, "flood %d %s\n", i, line)
			}
			fmt.Fprintln(os.Stderr, strings.Repeat("y", 100000))
			return sdk.Text("flooded"), nil
		}),
		tool("big", func(_ context.Context, c sdk.Call) (sdk.Result, error) {
			var in struct {
				Bytes int `json:"bytes"`
			}
			_ = c.Bind(&in)
			return sdk.Text(strings.Repeat("b", in.Bytes)), nil
		}),
	)
}

func tool(name string, run func(context.Context, sdk.Call) (sdk.Result, error)) sdk.Tool {
	return sdk.Tool{Name: name, Description: "test tool " + name, Tier: "low", Run: run}
}

// raw serves the Tools service without the SDK, answering every call
// with a result that is not JSON.
type raw struct {
	plugin.NetRPCUnsupportedPlugin
	pb.UnimplementedToolsServer
}

func (r *raw) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	pb.RegisterToolsServer(s, r)
	return nil
}

func (r *raw) GRPCClient(context.Context, *plugin.GRPCBroker, *grpc.ClientConn) (any, error) {
	return nil, nil
}

func (r *raw) Describe(context.Context, *pb.DescribeRequest) (*pb.DescribeResponse, error) {
	return &pb.DescribeResponse{Tools: []*pb.ToolSpec{{Name: "bad", InputSchema: []byte(`{"type":"object"}`), Tier: "low"}}}, nil
}

func (r *raw) Call(context.Context, *pb.CallRequest) (*pb.CallResponse, error) {
	return &pb.CallResponse{Result: []byte(`{"content": [not json`)}, nil
}
