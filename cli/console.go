//go:build !talon_no_mcp

package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/console"
	mcpserver "github.com/talonhq/talon/mcp/server"
	"github.com/talonhq/talon/plugins"
	spawner "github.com/talonhq/talon/sandbox"
)

// console builds the operator console talon serve mounts next to /mcp, on
// the same listener and under the same access rules. queue is nil when no
// approval queue runs.
func (s *serving) console(cfg *config.Config, queue *approval.Queue, access *mcpserver.Access) (*console.Console, error) {
	e := s.e
	ws := s.rt.Workspace()
	dataDir := e.dataDir(cfg)
	policy := e.sandboxPolicy(cfg, ws)
	ports := slices.Clone(cfg.Sandbox.AllowConnectPorts)
	dir := ""
	if cfg.Receipts.Enabled() {
		dir = e.receiptsDir(cfg)
	}
	return console.New(console.Options{
		Runtime: s.rt, Queue: queue, Access: access,
		Profile: s.settings.profile, Locale: s.settings.locale, ReceiptsDir: dir,
		Reach: func(port int) string { return toolReach(spawner.Current(), ports, port) },
		Plugins: func() ([]*plugins.Report, error) {
			return installedPlugins(s.rt.Config(), ws, dataDir, e.plugins)
		},
		SandboxCheck: func(ctx context.Context) (spawner.Report, error) { return spawner.Check(ctx, policy) },
		Logger:       s.log,
	})
}

// toolReach says why a tool process could open a TCP connection to port
// on loopback, or "" when the sandbox refuses it. ports are the
// allow_connect_ports the spawner was configured with.
func toolReach(st spawner.Status, ports []int, port int) string {
	switch {
	case !st.Active:
		why := "the sandbox is not active"
		if st.Reason != "" {
			why += " (" + st.Reason + ")"
		}
		return why
	case !st.Connect:
		return "the sandbox cannot restrict TCP connections on this kernel (Landlock ABI " + fmt.Sprint(st.ABI) + ")"
	case slices.Contains(ports, port):
		return fmt.Sprintf("[sandbox] allow_connect_ports lists port %d", port)
	}
	return ""
}

// installedPlugins reports every plugin directory of plugins_dir, as
// `talon plugins list` sees it, with the tools of those loaded at start.
func installedPlugins(cfg *config.Config, ws, dataDir string, loaded *plugins.Set) ([]*plugins.Report, error) {
	dir := plugins.Dir(cfg, dataDir)
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list plugins in %s: %w", dir, err)
	}
	tools := map[string][]string{}
	if loaded != nil {
		for _, r := range loaded.Plugins {
			tools[r.Name] = r.Tools
		}
	}
	opts := plugins.Options{Config: cfg, Workspace: ws, DataDir: dataDir}
	var out []*plugins.Report
	var problems []string
	for _, de := range ents {
		if strings.HasPrefix(de.Name(), ".") {
			continue
		}
		p := filepath.Join(dir, de.Name())
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			continue
		}
		r, err := plugins.Inspect(p, opts)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", de.Name(), err))
			continue
		}
		r.Tools = tools[r.Name]
		out = append(out, r)
	}
	if len(problems) > 0 {
		return out, errors.New(strings.Join(problems, "; "))
	}
	return out, nil
}
