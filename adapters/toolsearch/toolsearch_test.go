package toolsearch

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/talonhq/talon/tool"
)

type fakeDiscovery struct {
	got   tool.Call
	query string
	limit int
	specs []tool.Spec
}

func (f *fakeDiscovery) Search(_ context.Context, c tool.Call, q string, limit int) ([]tool.Spec, error) {
	f.got, f.query, f.limit = c, q, limit
	return f.specs, nil
}

func TestSearch(t *testing.T) {
	d := &fakeDiscovery{specs: []tool.Spec{{Name: "calculator", Description: "Evaluate.", Input: json.RawMessage(`{"type":"object"}`)}}}
	s := &Search{d: d}
	ctx := tool.WithCall(context.Background(), tool.Call{SessionID: "s1", Profile: "default"})
	res, err := s.Execute(ctx, json.RawMessage(`{"query":"math","limit":50}`))
	if err != nil || !res.Success {
		t.Fatalf("%+v %v", res, err)
	}
	if d.got.SessionID != "s1" || d.query != "math" || d.limit != MaxLimit {
		t.Fatalf("search got call %+v query %q limit %d", d.got, d.query, d.limit)
	}
	if !strings.Contains(res.Output.Text, "calculator") || !strings.Contains(res.Output.Text, "now available") {
		t.Fatalf("text %q", res.Output.Text)
	}
	if defs, ok := res.Output.Data.([]Definition); !ok || len(defs) != 1 {
		t.Fatalf("data %#v", res.Output.Data)
	}

	d.specs = nil
	res, _ = s.Execute(ctx, json.RawMessage(`{"query":"nothing"}`))
	if !res.Success || !strings.Contains(res.Output.Text, "no tool matches") || d.limit != DefaultLimit {
		t.Fatalf("empty search: %+v limit %d", res, d.limit)
	}

	res, _ = s.Execute(ctx, json.RawMessage(`{"query":"x","bogus":1}`))
	if res.Success {
		t.Fatal("unknown field accepted")
	}
	if _, err := tool.CompileSchema(Name, s.Spec().Input); err != nil {
		t.Fatal(err)
	}
}
