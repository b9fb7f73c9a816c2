package wasm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/talonhq/talon/plugins"
	"github.com/talonhq/talon/plugins/manifest"
)

// describeCacheVersion changes when what the cache holds, or what a
// description depends on, changes.
const describeCacheVersion = "talon-wasm-describe-v1"

// describeKey names a plugin's entry in the describe cache: what a
// description can depend on, namely the module (by its sha256, which the
// host checks against the bytes before it compiles them), the manifest
// (its hash), the plugin's name, the ABI and the granted config values,
// which talon_describe may read.
func describeKey(p *manifest.Plugin, moduleSum string) string {
	cfg := []byte("{}") // no config, whether nil or empty
	if len(p.Grants.Config) > 0 {
		cfg, _ = json.Marshal(p.Grants.Config) // map keys are sorted
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00%s\x00%s\x00%s\x00", describeCacheVersion, manifest.ABIVersion, p.Manifest.Name, moduleSum, p.Hash)
	h.Write(cfg)
	return hex.EncodeToString(h.Sum(nil))
}

// describeCacheFile is the cache file for key, "" without a data directory.
func describeCacheFile(dataDir, key string) string {
	if dataDir == "" {
		return ""
	}
	return filepath.Join(dataDir, "cache", "wasm-describe", key+".json")
}

// tooling sets the plugin's tools: from the describe cache when it holds
// them (and verify is false), so that nothing is compiled and no guest
// code runs, or by describing the module under the describe deadline and
// caching the answer.
func (p *plugin) tooling(ctx context.Context, key, dataDir string, deadline time.Duration, verify bool) error {
	file := describeCacheFile(dataDir, key)
	if file != "" && !verify {
		if doc, err := os.ReadFile(file); err == nil {
			if err := p.setTools(doc); err == nil {
				return nil
			}
			p.log.Warn().Str("attribution", p.attr.String()).Str("file", file).Msg("ignoring an unreadable describe cache; describing the plugin again")
		}
	}
	// Compiling, on a cold compilation cache, is not describing: it
	// happens before the describe deadline starts.
	if err := p.prepare(ctx); err != nil {
		return err
	}
	doc, err := p.describe(ctx, deadline)
	if err != nil {
		return err
	}
	if err := p.setTools(doc); err != nil {
		return err
	}
	if file != "" {
		if err := plugins.WriteCacheFile(file, doc); err != nil {
			p.log.Warn().Str("attribution", p.attr.String()).Err(err).Msg("could not cache the plugin's description")
		}
	}
	return nil
}

// setTools decodes a describe document into the plugin's tools.
func (p *plugin) setTools(doc []byte) error {
	described, err := decodeDescribe(doc)
	if err != nil {
		return err
	}
	p.tools = p.tools[:0]
	for _, d := range described {
		p.tools = append(p.tools, &wasmTool{p: p, d: d})
	}
	return nil
}

// describe starts an instance (compiling the module first), checks the
// ABI version and returns the talon_describe document, all within the
// describe deadline (or the plugin's timeout, when shorter). The instance
// is then closed: a plugin's pool starts empty, and holds instances only
// once it is called.
func (p *plugin) describe(ctx context.Context, deadline time.Duration) ([]byte, error) {
	deadline = min(deadline, p.limits.Timeout())
	dctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	doc, err := p.describeWith(dctx)
	if err != nil && ctx.Err() == nil && errors.Is(dctx.Err(), context.DeadlineExceeded) {
		return nil, fmt.Errorf("%w: starting the module and talon_describe took more than %s, the deadline to describe its tools: a plugin must describe its tools without doing work; fix the plugin or remove it", ErrTimeout, deadline)
	}
	return doc, err
}

func (p *plugin) describeWith(ctx context.Context) ([]byte, error) {
	inst, err := p.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer p.pool.Release(ctx, inst, false)
	ctx = withState(ctx, &callState{p: p, inst: inst})
	res, err := inst.version.Call(ctx)
	if err != nil {
		return nil, p.guestError(ctx, exportABIVersion, err)
	}
	if v := uint32(res[0]); v != manifest.ABIVersion {
		return nil, fmt.Errorf("%w: talon_abi_version returned %d, this host speaks %d: use a plugin built for ABI v%d", ErrABIVersion, v, manifest.ABIVersion, manifest.ABIVersion)
	}
	res, err = inst.describe.Call(ctx)
	if err != nil {
		return nil, p.guestError(ctx, exportDescribe, err)
	}
	doc, err := inst.read(res[0], maxDescribeBytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", exportDescribe, err)
	}
	inst.release(ctx, uint32(res[0]>>32))
	if _, err := decodeDescribe(doc); err != nil {
		return nil, err
	}
	inst.out.Flush()
	return doc, nil
}
