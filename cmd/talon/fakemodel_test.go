package main

import (
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/talonhq/talon/models/modeltest"
)

// fakeModels are the model servers scripts started, by script.
var fakeModels sync.Map // *testscript.TestScript -> *modeltest.Server

// fakeModel starts a scripted model server for the rest of the script and
// sets $MODEL_URL to its base URL: fake-model openai|anthropic SCRIPT.json [KEY].
// With KEY, every request must carry it.
func fakeModel(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: fake-model openai|anthropic SCRIPT.json [KEY]")
	}
	srv := modeltest.New(modeltest.Provider(args[0]))
	ts.Defer(srv.Close)
	if len(args) == 3 {
		srv.Key = args[2]
	}
	ts.Check(srv.LoadScript([]byte(ts.ReadFile(args[1]))))
	ts.Setenv("MODEL_URL", srv.URL)
	fakeModels.Store(ts, srv)
}

// modelSaw checks that some request the fake model received holds TEXT in
// a message: model-saw TEXT. With !, that none does.
func modelSaw(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: [!] model-saw TEXT")
	}
	v, ok := fakeModels.Load(ts)
	if !ok {
		ts.Fatalf("model-saw: no fake-model started")
	}
	found := false
	for _, r := range v.(*modeltest.Server).Requests() {
		for _, m := range r.Messages {
			found = found || strings.Contains(m.Text, args[0])
		}
	}
	if found == neg {
		ts.Fatalf("model-saw %q: found = %v", args[0], found)
	}
}
