package process

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/talonhq/talon/plugins"
	"github.com/talonhq/talon/plugins/manifest"
	pb "github.com/talonhq/talon/plugins/proto"
	"github.com/talonhq/talon/tool"
)

var (
	// ErrHashMismatch reports a binary whose SHA-256 is not the manifest's;
	// it is refused before it runs.
	ErrHashMismatch = errors.New("plugin binary does not match the manifest's sha256")
	// ErrStart reports a plugin that could not be started or did not
	// complete the handshake.
	ErrStart = errors.New("plugin did not start")
	// ErrCrashed reports a plugin process that exited during a call.
	ErrCrashed = errors.New("plugin process exited during the call")
	// ErrTimeout reports a call that ran past its deadline.
	ErrTimeout = errors.New("plugin call timed out")
	// ErrMalformed reports a result that is not the JSON document the
	// protocol defines.
	ErrMalformed = errors.New("plugin returned a malformed result")
	// ErrOversized reports a result over max_output_bytes.
	ErrOversized = errors.New("plugin result is over max_output_bytes")
	// ErrClosed reports a call to a plugin that was closed.
	ErrClosed = errors.New("plugin was closed")
	// ErrDescribe reports tools a plugin described badly.
	ErrDescribe = errors.New("plugin described its tools badly")
)

// DefaultKillGrace is how long a call that was cancelled (or ran past its
// deadline) may take to stop after Cancel before the process is killed.
const DefaultKillGrace = 2 * time.Second

// Host loads subprocess plugins. The zero value is the host talon
// registers; tests and benchmarks set fields.
type Host struct {
	// KillGrace is the time between Cancel and the kill; zero means
	// DefaultKillGrace.
	KillGrace time.Duration
	// NoParentDeath leaves out the Linux parent-death signal, so only the
	// SDK's watchdog ends a plugin whose host died (used to test it).
	NoParentDeath bool
	// NoAutoMTLS connects without mutual TLS (used to measure its cost).
	NoAutoMTLS bool
}

var _ plugins.Host = Host{}

func init() { plugins.RegisterHost(manifest.KindProcess, Host{}) }

// Load prepares a plugin: it reads the cached description of its tools,
// or starts the plugin once to ask for it. It runs no tool.
//
// # Errors
//
// A protocol version other than [pb.Version], a binary that fails its
// hash, a plugin that does not start or describes invalid tools: each
// error names the plugin.
func (h Host) Load(ctx context.Context, p *manifest.Plugin, env plugins.Env) (plugins.Loaded, error) {
	name := p.Manifest.Name
	if v := p.Manifest.ABIVersion; v != 0 && v != pb.Version {
		return nil, fmt.Errorf("load plugin %q: it speaks protocol version %d; this talon speaks %d: install a build of the plugin for protocol %d", name, v, pb.Version, pb.Version)
	}
	inst := newInstance(h, p, env)
	specs, err := inst.describe(ctx)
	if err != nil {
		_ = inst.Close(ctx)
		return nil, fmt.Errorf("load plugin %q: %w", name, err)
	}
	inst.tools = make([]tool.Tool, len(specs))
	for i, s := range specs {
		inst.tools[i] = &pluginTool{inst: inst, spec: s}
	}
	return inst, nil
}

// cachedSpec is one tool in the describe cache.
type cachedSpec struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"input_schema"`
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	Tier         string          `json:"tier,omitempty"`
}

// cacheFile is where a plugin's description is kept: per manifest hash,
// which covers the binary's sha256 and the granted config does not change
// what a plugin may describe.
func cacheFile(env plugins.Env, p *manifest.Plugin) string {
	if env.DataDir == "" || p.Hash == "" {
		return ""
	}
	return filepath.Join(env.DataDir, "cache", "process", p.Hash+".json")
}

// describe returns the plugin's tool specs from the cache, or from the
// plugin (which is then stopped again).
func (in *instance) describe(ctx context.Context) ([]tool.Spec, error) {
	file := cacheFile(in.env, in.p)
	if file != "" {
		if b, err := os.ReadFile(file); err == nil {
			var cached []cachedSpec
			if json.Unmarshal(b, &cached) == nil {
				if specs, err := in.specs(cached); err == nil {
					return specs, nil
				}
			}
			in.log.Warn().Str("file", file).Msg("ignoring an unreadable plugin description cache")
		}
	}
	c, err := in.acquire(ctx)
	if err != nil {
		return nil, err
	}
	cfg, err := in.configJSON()
	if err != nil {
		in.release()
		return nil, err
	}
	dctx, cancel := context.WithTimeout(ctx, in.p.Manifest.Limits.StartTimeout())
	resp, err := c.rpc.Describe(dctx, &pb.DescribeRequest{Config: cfg})
	cancel()
	in.release()
	in.stop()
	if err != nil {
		return nil, fmt.Errorf("%w: describe: %v", ErrStart, err)
	}
	in.logDiagnostics(resp.GetDiagnostics())
	cached := make([]cachedSpec, 0, len(resp.GetTools()))
	for _, t := range resp.GetTools() {
		cached = append(cached, cachedSpec{
			Name: t.GetName(), Description: t.GetDescription(),
			InputSchema: t.GetInputSchema(), OutputSchema: t.GetOutputSchema(), Tier: t.GetTier(),
		})
	}
	specs, err := in.specs(cached)
	if err != nil {
		return nil, err
	}
	if file != "" {
		if b, err := json.Marshal(cached); err == nil {
			if err := plugins.WriteCacheFile(file, b); err != nil {
				in.log.Warn().Err(err).Msg("could not cache the plugin's description")
			}
		}
	}
	return specs, nil
}

// specs checks a description and turns it into tool specs.
func (in *instance) specs(cached []cachedSpec) ([]tool.Spec, error) {
	if len(cached) == 0 {
		return nil, fmt.Errorf("%w: it serves no tools", ErrDescribe)
	}
	seen := map[string]bool{}
	out := make([]tool.Spec, 0, len(cached))
	for _, c := range cached {
		if err := tool.ValidateName(c.Name); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrDescribe, err)
		}
		if seen[c.Name] {
			return nil, fmt.Errorf("%w: tool %s is described twice", ErrDescribe, c.Name)
		}
		seen[c.Name] = true
		input := c.InputSchema
		if len(input) == 0 {
			input = json.RawMessage(`{"type":"object"}`)
		}
		var schema map[string]any
		if err := json.Unmarshal(input, &schema); err != nil {
			return nil, fmt.Errorf("%w: tool %s: the input schema is not a JSON object: %v", ErrDescribe, c.Name, err)
		}
		if len(c.OutputSchema) > 0 && !json.Valid(c.OutputSchema) {
			return nil, fmt.Errorf("%w: tool %s: the output schema is not valid JSON", ErrDescribe, c.Name)
		}
		var tier tool.Tier
		if c.Tier != "" {
			t, err := tool.ParseTier(c.Tier)
			if err != nil {
				return nil, fmt.Errorf("%w: tool %s: %v", ErrDescribe, c.Name, err)
			}
			tier = t
		}
		out = append(out, tool.Spec{
			Name: c.Name, Description: c.Description, Input: input, Output: c.OutputSchema, Tier: tier,
			Attribution: tool.Attribution{Kind: tool.KindProcess, Alias: in.p.Manifest.Name},
		})
	}
	return out, nil
}
