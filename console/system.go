package console

import (
	"context"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/talonhq/talon/plugins"
	"github.com/talonhq/talon/sandbox"
)

// checkTimeout bounds one sandbox check run from the page.
const checkTimeout = 2 * time.Minute

type pluginRow struct {
	R *plugins.Report
	// Refusal is why the loader would not load it; "" when it would.
	Refusal string
	Hosts   string
	Read    string
	Write   string
	Secrets string
	Config  string
}

type pluginsData struct {
	Rows []pluginRow
	Err  string
}

func (c *Console) pluginsPage(w http.ResponseWriter, r *http.Request, v *view) {
	v.Title = v.T("plugins-title")
	v.Nav = "plugins"
	var d pluginsData
	if c.opts.Plugins != nil {
		reports, err := c.opts.Plugins()
		if err != nil {
			d.Err = err.Error()
		}
		for _, rep := range reports {
			row := pluginRow{R: rep}
			if err := rep.Refusal(); err != nil {
				row.Refusal = err.Error()
			}
			g := rep.Grants
			row.Hosts = strings.Join(g.AllowedHosts, ", ")
			row.Read = strings.Join(g.FSRead, ", ")
			row.Write = strings.Join(g.FSWrite, ", ")
			row.Secrets = strings.Join(g.Secrets, ", ")
			keys := make([]string, 0, len(g.Config))
			for k := range g.Config {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			row.Config = strings.Join(keys, ", ")
			d.Rows = append(d.Rows, row)
		}
	}
	v.Data = d
	c.render(w, http.StatusOK, "plugins", v)
}

// checkResult is the last sandbox check.
type checkResult struct {
	At     time.Time
	Report sandbox.Report
	Err    string
}

type sandboxData struct {
	Status   sandbox.Status
	Summary  string
	CanCheck bool
	Check    *checkResult
	Reach    string
}

func (c *Console) sandboxPage(w http.ResponseWriter, r *http.Request, v *view) {
	c.renderSandbox(w, r, v, http.StatusOK)
}

func (c *Console) renderSandbox(w http.ResponseWriter, r *http.Request, v *view, status int) {
	v.Title = v.T("sandbox-title")
	v.Nav = "sandbox"
	st := sandbox.Current()
	d := sandboxData{Status: st, Summary: st.Summary(), CanCheck: c.opts.SandboxCheck != nil, Reach: c.answersRefused(r)}
	c.checkMu.Lock()
	d.Check = c.lastCheck
	c.checkMu.Unlock()
	v.Data = d
	c.render(w, status, "sandbox", v)
}

// runSandboxCheck proves each protection in a child, as `talon sandbox
// check` does. One check runs at a time.
func (c *Console) runSandboxCheck(w http.ResponseWriter, r *http.Request, v *view) {
	if !c.stateChange(w, r, v) {
		return
	}
	if c.opts.SandboxCheck == nil {
		c.fail(w, r, v, http.StatusNotFound, v.T("error-no-check"))
		return
	}
	if !c.checking.TryLock() {
		c.fail(w, r, v, http.StatusTooManyRequests, v.T("error-check-busy"))
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), checkTimeout)
	rep, err := c.opts.SandboxCheck(ctx)
	cancel()
	c.checking.Unlock()
	res := &checkResult{At: c.now().UTC(), Report: rep}
	if err != nil {
		res.Err = err.Error()
	}
	c.checkMu.Lock()
	c.lastCheck = res
	c.checkMu.Unlock()
	c.log.Info().Bool("ok", rep.OK).Msg("sandbox checked from the console")
	c.renderSandbox(w, r, v, http.StatusOK)
}
