package console

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/talonhq/talon/catalog"
	"github.com/talonhq/talon/runtime"
	"github.com/talonhq/talon/tool"
)

// channels a caller can come in on, as the Catalog and Policy pages offer
// them.
var channels = []string{tool.ChannelMCP, tool.ChannelCLI, tool.ChannelAPI, tool.ChannelCron}

// maxArgs bounds the arguments the Policy page explains.
const maxArgs = 64 << 10

type catalogData struct {
	Profiles []string
	Profile  string
	Channels []string
	Channel  string
	Surface  string
	Rows     []catalogRow
	// Core lists the core set of each surface, for the note under the
	// table.
	Core map[string][]string
}

type catalogRow struct {
	Spec    tool.Spec
	PerCall bool
	Core    bool
}

// pick returns want when it is one of have, else def.
func pick(want string, have []string, def string) string {
	if slices.Contains(have, want) {
		return want
	}
	return def
}

func (c *Console) catalogPage(w http.ResponseWriter, r *http.Request, v *view) {
	v.Title = v.T("catalog-title")
	v.Nav = "catalog"
	q := r.URL.Query()
	profiles := c.rt.Policy().Names()
	d := catalogData{Profiles: profiles, Channels: channels, Surface: c.rt.Catalog().Surface(),
		Profile: pick(q.Get("profile"), profiles, c.opts.Profile), Channel: pick(q.Get("channel"), channels, tool.ChannelMCP),
		Core: map[string][]string{catalog.SurfaceChat: catalog.Core(catalog.SurfaceChat), catalog.SurfaceCode: catalog.Core(catalog.SurfaceCode)}}
	specs, err := c.rt.View(runtime.ViewOptions{Profile: d.Profile, Channel: d.Channel, Locale: v.Lang, AnyActivated: true})
	if err != nil {
		c.fail(w, r, v, http.StatusBadRequest, err.Error())
		return
	}
	core := d.Core[d.Surface]
	for _, s := range specs {
		d.Rows = append(d.Rows, catalogRow{Spec: s, PerCall: c.rt.PerCall(s.Name), Core: slices.Contains(core, s.Name)})
	}
	slices.SortFunc(d.Rows, func(a, b catalogRow) int { return strings.Compare(a.Spec.Name, b.Spec.Name) })
	v.Data = d
	c.render(w, http.StatusOK, "catalog", v)
}

type policyData struct {
	Tools    []string
	Profiles []string
	Channels []string
	Tool     string
	Args     string
	Profile  string
	Channel  string
	Ex       *runtime.Explanation
	// Failed is the result text of arguments the schema refused.
	Failed string
	// Err is a call that could not be explained at all.
	Err string
}

// policyPage is `talon policy explain` as a form: nothing runs and nobody
// is asked.
func (c *Console) policyPage(w http.ResponseWriter, r *http.Request, v *view) {
	v.Title = v.T("policy-title")
	v.Nav = "policy"
	q := r.URL.Query()
	profiles := c.rt.Policy().Names()
	d := policyData{Profiles: profiles, Channels: channels, Tool: strings.TrimSpace(q.Get("tool")), Args: q.Get("args"),
		Profile: pick(q.Get("profile"), profiles, c.opts.Profile), Channel: pick(q.Get("channel"), channels, tool.ChannelMCP)}
	for _, e := range c.rt.Catalog().Entries() {
		d.Tools = append(d.Tools, e.Spec.Name)
	}
	slices.Sort(d.Tools)
	status := http.StatusOK
	if d.Tool != "" {
		switch {
		case len(d.Args) > maxArgs:
			d.Err, status = v.T("error-args-long", "max", maxArgs), http.StatusBadRequest
		case strings.TrimSpace(d.Args) != "" && !json.Valid([]byte(d.Args)):
			d.Err, status = v.T("error-args-json"), http.StatusBadRequest
		default:
			ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
			ex, res, err := c.rt.Explain(ctx, tool.Call{Name: d.Tool, Args: json.RawMessage(d.Args), Channel: d.Channel, Profile: d.Profile})
			cancel()
			switch {
			case err != nil:
				d.Err, status = err.Error(), http.StatusBadRequest
			case res != nil:
				d.Failed = res.Error
			default:
				d.Ex = &ex
			}
		}
	}
	v.Data = d
	c.render(w, status, "policy", v)
}
