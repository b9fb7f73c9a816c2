package web

import (
	"time"

	"github.com/talonhq/talon/netguard"
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/toolfactory"
)

func init() {
	toolfactory.Register(toolfactory.Factory{
		Name: FetchName,
		Tier: tool.Low,
		New: func(env toolfactory.Env) (tool.Tool, error) {
			return NewWebFetch(settingsFrom(env).fetch)
		},
	})
	toolfactory.Register(toolfactory.Factory{
		Name:    RequestName,
		Tier:    tool.Low, // every call is assessed: writes are high
		PerCall: true,
		New: func(env toolfactory.Env) (tool.Tool, error) {
			return NewHTTPRequest(settingsFrom(env).request)
		},
	})
}

// netSection is the network policy of one tool's config table,
// [tools.web_fetch] or [tools.http_request]. Its fields mirror the config
// struct field for field, so a config value converts to it directly.
type netSection struct {
	AllowedDomains []string
	BlockedDomains []string
	AllowPrivate   []string
	MaxBytes       int64
	TimeoutSeconds int
	// MaxRedirectsSetting is nil when max_redirects is absent (5); 0 means
	// redirects are not followed.
	MaxRedirectsSetting *int
}

// options turns a config table into guard options; zero fields keep the
// guard's defaults.
func (s netSection) options() netguard.Options {
	o := netguard.Options{
		AllowedHosts: s.AllowedDomains,
		BlockedHosts: s.BlockedDomains,
		AllowPrivate: s.AllowPrivate,
		MaxBytes:     s.MaxBytes,
		Timeout:      time.Duration(s.TimeoutSeconds) * time.Second,
	}
	if p := s.MaxRedirectsSetting; p != nil {
		o.MaxRedirects = *p
		if *p <= 0 {
			o.MaxRedirects = -1
		}
	}
	return o
}

// settings are both tools' options.
type settings struct {
	fetch   FetchOptions
	request RequestOptions
}

// settingsFrom reads [tools.web_fetch] and [tools.http_request]. A nil
// config means defaults: web_fetch may reach any public host and
// http_request none.
func settingsFrom(env toolfactory.Env) settings {
	var fetch, req netSection
	var secrets map[string]string
	if cfg := env.Config; cfg != nil {
		fetch = netSection(cfg.Tools.WebFetch)
		h := cfg.Tools.HTTPRequest
		req = netSection{AllowedDomains: h.AllowedDomains, BlockedDomains: h.BlockedDomains, AllowPrivate: h.AllowPrivate,
			MaxBytes: h.MaxBytes, TimeoutSeconds: h.TimeoutSeconds, MaxRedirectsSetting: h.MaxRedirectsSetting}
		secrets = h.Secrets
	}
	return settings{
		fetch:   FetchOptions{Network: fetch.options(), Logger: env.Logger},
		request: RequestOptions{Network: req.options(), Secrets: secrets, Logger: env.Logger},
	}
}
