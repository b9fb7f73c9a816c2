package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/risk"
	spawner "github.com/talonhq/talon/sandbox"
	"github.com/talonhq/talon/workspace"
)

// sandboxPolicy turns [sandbox] and the paths of this run into the
// spawner's policy. Deny lists the protected paths the file tools refuse
// too (risk.ProtectedPaths: the credentials under HOME, the data dir with
// keys, receipts and the approval socket, the config file) and every
// profile's forbidden_paths without globs, relative ones taken from the
// workspace.
func (e *env) sandboxPolicy(cfg *config.Config, ws string) spawner.Policy {
	s := cfg.Sandbox
	mode, _ := spawner.ParseMode(s.ModeName()) // validated with the config
	log, _ := e.logger()
	home := e.io.getenv("HOME")
	expand := func(p string) string {
		if rest, ok := strings.CutPrefix(p, "~/"); ok && home != "" {
			return filepath.Join(home, rest)
		}
		if p == "~" {
			return home
		}
		return p
	}
	prot := risk.ProtectedPaths(cfg, e.dataDir(cfg), e.io.getenv)
	deny := prot.Deny()
	for _, prof := range cfg.RiskProfiles {
		for _, f := range prof.ForbiddenPaths {
			if !strings.ContainsAny(f, "*?[{") {
				if p, err := workspace.AnchorPattern(f, ws, home); err == nil && !slices.Contains(deny, p) {
					deny = append(deny, p)
				}
			}
		}
	}
	sort.Strings(deny)
	deny = slices.Compact(deny) // XDG_CONFIG_HOME is often ~/.config
	return spawner.Policy{
		Mode:              mode,
		Workspace:         ws,
		ReadOnly:          mapStrings(s.ReadOnly, expand),
		ReadWrite:         mapStrings(s.ReadWrite, expand),
		Deny:              deny,
		Protect:           prot.ReadOnlyIn(ws),
		AllowConnectPorts: s.AllowConnectPorts,
		AllowBind:         s.AllowBind,
		Limits: spawner.Limits{
			CPUSeconds: s.MaxCPUSeconds, MemoryMB: s.MaxMemoryMB,
			Processes: s.MaxProcesses, OpenFiles: s.MaxOpenFiles,
		},
		NativeHelper: expand(s.Helper),
		Logger:       log,
	}
}

func mapStrings(in []string, f func(string) string) []string {
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = f(s)
	}
	return out
}

// configureSandbox makes the policy the spawner's, once per process,
// before any tool runs, and says once when auto mode cannot enforce it.
// The namespace probe waits for the first tool process, so a command that
// starts none does not pay for it; sandboxProbed hears what it found.
func (e *env) configureSandbox(cfg *config.Config, ws string) {
	if e.sandboxed {
		return
	}
	e.sandboxed = true
	p := e.sandboxPolicy(cfg, ws)
	p.OnProbe = e.sandboxProbed
	if st := spawner.Configure(p); st.Mode == spawner.Auto && !st.Active {
		fmt.Fprintf(e.io.ErrOut, "talon: warning: sandbox unavailable (%s); tool processes run without Landlock. Set [sandbox] mode = \"required\" to refuse instead, or \"off\" to silence this\n", st.Reason)
	}
}

// workspaceDir is the workspace of this run: --workspace, else config,
// else the working directory.
func (e *env) workspaceDir(cfg *config.Config) (string, error) {
	cwd, err := e.io.cwd()
	if err != nil {
		return "", err
	}
	home := e.io.getenv("HOME")
	if w := e.g.workspace; w != "" {
		// A relative --workspace is the working directory's, ~ the home's.
		switch rest, ok := strings.CutPrefix(w, "~/"); {
		case w == "~" && home != "":
			w = home
		case ok && home != "":
			w = filepath.Join(home, rest)
		case !filepath.IsAbs(w):
			w = filepath.Join(cwd, w)
		}
		return filepath.Clean(w), nil
	}
	ws, err := cfg.WorkspaceDirIn(cwd, home)
	if err != nil {
		return "", withCode(ExitUsage, err)
	}
	return ws, nil
}

func newSandboxCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sandbox",
		Short: "Inspect the sandbox tool processes run in",
		Long: `Every process talon starts for tool work runs in new PID and mount namespaces
(where the kernel allows them), under Linux Landlock, a seccomp filter and
rlimits, without capabilities, from a helper (talon re-executed) that stays as
its init: it sees no process of talon's, and nothing it starts outlives it.
talon's own process is never restricted. [sandbox] in the config sets the mode
and what children may reach.`,
	}
	cmd.AddCommand(newSandboxCheckCmd(e))
	return cmd
}

func newSandboxCheckCmd(e *env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Report how tool processes are confined here and prove each protection in a child",
		Long: `check reports what confines tool processes on this machine (pid+mount namespaces
or Landlock only), the kernel's Landlock ABI and which protections are active,
then proves each one: a child tries a forbidden action without the sandbox and
with it (reading another process's environment, reaching a socket under a
denied directory, leaving a process behind, opening a raw or UDP socket, using
root's capabilities, writing outside the workspace, connecting, binding,
signalling talon). It exits 1 when a protection the policy claims does not
hold, or when the sandbox is inactive under mode "required".`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := e.config()
			if err != nil {
				return err
			}
			ws, err := e.workspaceDir(cfg)
			if err != nil {
				return err
			}
			r, err := spawner.Check(cmd.Context(), e.sandboxPolicy(cfg, ws))
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			prot := e.protectedRules(cfg)
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				if err := enc.Encode(struct {
					spawner.Report
					Protected []protectedRule `json:"protected"`
				}{r, prot}); err != nil {
					return err
				}
			} else {
				printCheck(out, r)
				printProtected(out, prot)
			}
			switch {
			case r.Status.Active && !r.OK:
				return withCode(ExitError, fmt.Errorf("a sandbox protection did not hold; report it with the output above"))
			case !r.Status.Active && r.Status.Mode == spawner.Required:
				return withCode(ExitError, fmt.Errorf("%w: %s; set [sandbox] mode = \"auto\" to run tools unsandboxed", spawner.ErrUnsandboxed, r.Status.Reason))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func printCheck(out interface{ Write([]byte) (int, error) }, r spawner.Report) {
	st := r.Status
	fmt.Fprintf(out, "sandbox: %s (mode %s)\n", r.Summary, st.ModeName)
	if st.Mechanism != "" {
		fmt.Fprintf(out, "mechanism:   %s\n", st.Mechanism)
	}
	if st.Active && !st.Namespaces {
		fmt.Fprintf(out, "namespaces:  unavailable (%s)\n", st.NamespacesReason)
	}
	if st.Helper != "" {
		fmt.Fprintf(out, "helper:      %s\n", helperLine(st))
	}
	fmt.Fprintf(out, "landlock abi: %d\n", st.ABI)
	if st.Reason != "" {
		fmt.Fprintf(out, "reason: %s\n", st.Reason)
	}
	onOff := func(b bool) string {
		if b {
			return "active"
		}
		return "inactive"
	}
	fmt.Fprintf(out, "filesystem:  %s\n", onOff(st.Filesystem))
	fmt.Fprintf(out, "tcp connect: %s\n", onOff(st.Connect))
	fmt.Fprintf(out, "tcp bind:    %s\n", onOff(st.Bind))
	fmt.Fprintf(out, "scoping:     %s\n", onOff(st.Scope))
	if st.Active {
		sockets := "raw, packet and UDP sockets refused"
		switch {
		case !st.SocketFilter:
			sockets = "not filtered on this architecture"
		case st.UDP:
			sockets = "raw and packet sockets refused; UDP allowed (allow_connect_ports lists 53)"
		}
		fmt.Fprintf(out, "sockets:     %s\n", sockets)
		if st.NoPrivileges {
			fmt.Fprintf(out, "privileges:  no capabilities, no new privileges\n")
		}
	}
	l := r.Limits
	fmt.Fprintf(out, "limits:      cpu %s, memory %s, processes %s, open files %s\n",
		limit(l.CPUSeconds, "s"), limit(l.MemoryMB, " MiB"), limit(l.Processes, ""), limit(l.OpenFiles, ""))
	for _, x := range st.Exposed {
		fmt.Fprintf(out, "exposed: %s lies inside the workspace, so tool processes can reach it; move it out of the workspace\n", x)
	}
	for _, x := range st.Unprotected {
		fmt.Fprintf(out, "unprotected: tool processes can change %s without namespaces\n", x)
	}
	for _, p := range r.Proofs {
		verdict := "ok"
		if !p.OK {
			verdict = "FAILED"
		}
		want := "(want denied)"
		switch {
		case p.Exposure != "" && !p.Expected:
			verdict, want = "open", "(not stopped "+p.Exposure+")"
		case !p.Expected:
			want = "(want allowed)"
		}
		fmt.Fprintf(out, "%-6s %-11s %s: %s without the sandbox, %s with it %s\n",
			verdict, p.Protection, p.Action, p.Control, p.Sandboxed, want)
	}
}

// protectedRule is one place no tool may touch, as sandbox check and
// policy explain list it.
type protectedRule struct {
	Name   string `json:"name"`
	Where  string `json:"where"`
	Access string `json:"access"`
	Why    string `json:"why"`
}

// protectedRules lists what the file tools refuse and the sandbox hides
// in this run (risk.ProtectedPaths), with paths under HOME written ~/.
func (e *env) protectedRules(cfg *config.Config) []protectedRule {
	home := e.io.getenv("HOME")
	var out []protectedRule
	for _, r := range risk.ProtectedPaths(cfg, e.dataDir(cfg), e.io.getenv).Rules() {
		where := r.Where()
		if rest, ok := strings.CutPrefix(where, home+string(filepath.Separator)); ok && home != "" && filepath.IsAbs(home) {
			where = "~/" + rest
		}
		out = append(out, protectedRule{Name: r.Name, Where: where, Access: r.AccessName(), Why: r.Why})
	}
	return out
}

// printProtected writes the protected places, one line each.
func printProtected(out interface{ Write([]byte) (int, error) }, rules []protectedRule) {
	if len(rules) == 0 {
		return
	}
	fmt.Fprintln(out, "protected (no tool reads or changes these; read-only ones may be read):")
	for _, r := range rules {
		fmt.Fprintf(out, "  %-10s %s  [%s] %s\n", r.Access, r.Where, r.Name, r.Why)
	}
}

// helperLine says which program starts tool processes, and why not
// talon-sandbox when talon re-executes itself.
func helperLine(st spawner.Status) string {
	if st.Helper != spawner.HelperTalon {
		return st.Helper + " (" + spawner.NativeName + ")"
	}
	if st.HelperReason == "" {
		return "talon, re-executed"
	}
	return "talon, re-executed (" + st.HelperReason + ")"
}

func limit(n int, unit string) string {
	if n == 0 {
		return "system"
	}
	return fmt.Sprintf("%d%s", n, unit)
}

// newSandboxHelperCmd is the hidden helper the spawner re-executes talon
// as; see spawner.Main.
func newSandboxHelperCmd() *cobra.Command {
	return &cobra.Command{
		Use:                spawner.HelperCommand,
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(_ *cobra.Command, args []string) error {
			if code := spawner.Main(args); code != 0 {
				return errSilent(code)
			}
			return nil
		},
	}
}

// cleanupSandbox removes the per-call temp dirs left by tool processes
// that were started but not waited for here.
func cleanupSandbox() { spawner.Cleanup() }
