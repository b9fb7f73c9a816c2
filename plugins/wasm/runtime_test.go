package wasm

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/plugins/manifest"
	"github.com/talonhq/talon/receipts"
	"github.com/talonhq/talon/runtime"
	"github.com/talonhq/talon/tool"
)

// TestThroughRuntime runs the hello-go example's tools through the
// runtime: schema validation, policy, approvals and receipts apply to a
// plugin's tools as to any other.
func TestThroughRuntime(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, "pong")
	}))
	t.Cleanup(srv.Close)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	h := New(Options{AllowPrivate: []string{"127.0.0.1"}, Resolver: mapResolver{"api.test": "127.0.0.1"}})
	l, _ := mustLoad(t, h, fixture{name: "hello", wasm: goPlugin(t, "../examples/hello-go"),
		grants: manifest.Grants{AllowedHosts: []string{"api.test"}}})

	newRT := func(level string) (*runtime.Runtime, string) {
		dir := t.TempDir()
		store, err := receipts.Open(receipts.Options{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = store.Close() })
		none := []string{}
		cfg := &config.Config{RiskProfiles: map[string]config.RiskProfile{"default": {Level: level}}}
		cfg.Tools.Optional = &none
		rt, err := runtime.New(runtime.Options{Config: cfg, Workspace: t.TempDir(), Tools: l.Tools(),
			Approver: approval.NonInteractive{}, Receipts: store, Logger: zerolog.Nop(), ApprovalTimeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		return rt, dir
	}
	fetch := tool.Call{Name: "fetch", Args: json.RawMessage(fmt.Sprintf(`{"url":"http://api.test:%d/"}`, port))}

	supervised, dir := newRT(config.LevelSupervised)
	res, err := supervised.Call(context.Background(), tool.Call{Name: "greet", Args: json.RawMessage(`{"name":"Ada"}`)})
	if err != nil || !res.Success || res.Output.Text != "Hello, Ada!" {
		t.Fatalf("greet = %+v, %v", res, err)
	}
	if res.Receipt == nil || res.Receipt.Attribution != "wasm.hello" || res.Receipt.Tool != "greet" {
		t.Fatalf("receipt = %+v", res.Receipt)
	}
	// A schema failure is a failed result, and the plugin never runs.
	res, err = supervised.Call(context.Background(), tool.Call{Name: "greet", Args: json.RawMessage(`{}`)})
	if err != nil || res.Success || res.Receipt != nil {
		t.Fatalf("greet without name = %+v, %v", res, err)
	}
	// fetch is medium: under supervised with nobody to ask, it is denied
	// and makes no request.
	res, err = supervised.Call(context.Background(), fetch)
	if err != nil || res.Success || !res.Denied || res.Receipt != nil {
		t.Fatalf("fetch under supervised = %+v, %v", res, err)
	}
	if hits.Load() != 0 {
		t.Fatal("a denied call reached the server")
	}
	rs, err := receipts.List(dir, receipts.Filter{})
	if err != nil || len(rs) != 1 {
		t.Fatalf("receipts = %d, %v; want only greet's", len(rs), err)
	}

	full, _ := newRT(config.LevelFull)
	res, err = full.Call(context.Background(), fetch)
	if err != nil || !res.Success || res.Receipt == nil || res.Receipt.Attribution != "wasm.hello" {
		t.Fatalf("fetch under full = %+v, %v", res, err)
	}
	if data, _ := res.Output.Data.(map[string]any); data["body"] != "pong" {
		t.Fatalf("fetch data = %#v", res.Output.Data)
	}
	if hits.Load() != 1 {
		t.Fatalf("server hits = %d", hits.Load())
	}
}
