package web

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/netguard"
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/toolfactory"
)

func TestRegistered(t *testing.T) {
	for _, name := range []string{FetchName, RequestName} {
		t.Run(name, func(t *testing.T) {
			fac, ok := toolfactory.Get(name)
			if !ok {
				t.Fatalf("%s is not registered", name)
			}
			if fac.Tier != tool.Low {
				t.Errorf("factory tier = %v, want low", fac.Tier)
			}
			for _, env := range []toolfactory.Env{{}, {Config: config.Default()}} {
				tl, err := fac.New(env)
				if err != nil {
					t.Fatalf("New: %v", err)
				}
				if spec := tl.Spec(); spec.Name != name || spec.Tier != tool.Low || spec.Attribution.String() != "builtin."+name {
					t.Errorf("spec = %+v", spec)
				}
				if c, ok := tl.(interface{ Close() error }); ok {
					_ = c.Close()
				}
			}
		})
	}
}

// TestDefaultHTTPRequestRefuses checks that http_request as registered,
// with no configuration, refuses every call and says how to configure it.
func TestDefaultHTTPRequestRefuses(t *testing.T) {
	fac, _ := toolfactory.Get(RequestName)
	tl, err := fac.New(toolfactory.Env{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := tl.Execute(context.Background(), json.RawMessage(`{"url":"https://example.com/"}`))
	if err != nil || res.Success || !strings.Contains(res.Error, "allowed_domains") {
		t.Fatalf("got %+v, %v", res, err)
	}
}

func TestNetSection(t *testing.T) {
	zero, three := 0, 3
	tests := []struct {
		name string
		in   netSection
		want netguard.Options
	}{
		{name: "empty", want: netguard.Options{}},
		{name: "lists and limits", in: netSection{AllowedDomains: []string{"a.test"}, BlockedDomains: []string{"b.test"}, AllowPrivate: []string{"10.0.0.0/8"}, MaxBytes: 100, TimeoutSeconds: 7},
			want: netguard.Options{AllowedHosts: []string{"a.test"}, BlockedHosts: []string{"b.test"}, AllowPrivate: []string{"10.0.0.0/8"}, MaxBytes: 100, Timeout: 7 * time.Second}},
		{name: "no redirects", in: netSection{MaxRedirectsSetting: &zero}, want: netguard.Options{MaxRedirects: -1}},
		{name: "three redirects", in: netSection{MaxRedirectsSetting: &three}, want: netguard.Options{MaxRedirects: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.in.options()
			if strings.Join(got.AllowedHosts, ",") != strings.Join(tt.want.AllowedHosts, ",") ||
				strings.Join(got.BlockedHosts, ",") != strings.Join(tt.want.BlockedHosts, ",") ||
				strings.Join(got.AllowPrivate, ",") != strings.Join(tt.want.AllowPrivate, ",") ||
				got.MaxBytes != tt.want.MaxBytes || got.Timeout != tt.want.Timeout || got.MaxRedirects != tt.want.MaxRedirects {
				t.Errorf("options() = %+v, want %+v", got, tt.want)
			}
		})
	}
}
