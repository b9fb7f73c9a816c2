package fsx_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/talonhq/talon/adapters/fsx"
	"github.com/talonhq/talon/tool"
)

func allTools(f *fixture) []tool.Tool {
	return []tool.Tool{
		fsx.NewReadFile(f.root, fsx.ReadFileOptions{}),
		fsx.NewGlobSearch(f.root, fsx.GlobSearchOptions{}),
		fsx.NewContentSearch(f.root, fsx.ContentSearchOptions{}),
		fsx.NewWriteFile(f.root, fsx.WriteFileOptions{}),
		fsx.NewEditFile(f.root, fsx.EditFileOptions{}),
	}
}

func TestSpecs(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name    string
		tier    tool.Tier
		valid   []string
		invalid []string
	}{
		{name: "file_read", tier: tool.Low,
			valid:   []string{`{"path":"a"}`, `{"path":"a","offset":3,"limit":10000}`},
			invalid: []string{`{}`, `{"path":""}`, `{"path":"a","offset":0}`, `{"path":"a","limit":10001}`, `{"path":"a","x":1}`, `{"path":"a","offset":1.5}`}},
		{name: "glob_search", tier: tool.Low,
			valid:   []string{`{"pattern":"*"}`, `{"pattern":"*","path":"src","max_results":1000}`},
			invalid: []string{`{}`, `{"pattern":"*","max_results":1001}`, `{"pattern":"*","max_results":0}`, `{"pattern":"*","x":1}`}},
		{name: "content_search", tier: tool.Low,
			valid:   []string{`{"pattern":"x"}`, `{"pattern":"x","path":"a","include":["*.go"],"context":10,"case_sensitive":false,"max_results":200}`},
			invalid: []string{`{}`, `{"pattern":"x","context":11}`, `{"pattern":"x","max_results":201}`, `{"pattern":"x","include":"*.go"}`, `{"pattern":"x","x":1}`}},
		{name: "file_write", tier: tool.Medium,
			valid:   []string{`{"path":"a","content":""}`},
			invalid: []string{`{"path":"a"}`, `{"content":"x"}`, `{"path":"a","content":1}`, `{"path":"a","content":"","x":1}`}},
		{name: "file_edit", tier: tool.Medium,
			valid:   []string{`{"path":"a","old_string":"x","new_string":"y"}`, `{"path":"a","old_string":"x","new_string":"y","replace_all":true}`},
			invalid: []string{`{"path":"a","old_string":"x"}`, `{"path":"a","old_string":"x","new_string":"y","replace_all":"yes"}`, `{"path":"a","old_string":"x","new_string":"y","x":1}`}},
	}
	tools := map[string]tool.Tool{}
	for _, tl := range allTools(f) {
		tools[tl.Spec().Name] = tl
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl, ok := tools[tt.name]
			if !ok {
				t.Fatalf("no tool named %s", tt.name)
			}
			spec := tl.Spec()
			if spec.Tier != tt.tier || spec.Attribution != (tool.Attribution{Kind: tool.KindBuiltin, Alias: tt.name}) {
				t.Errorf("spec = %+v", spec)
			}
			if strings.Contains(string(spec.Input), "description") || spec.Description != "" {
				t.Error("descriptions come from the message catalog, not the spec")
			}
			var doc map[string]any
			if err := json.Unmarshal(spec.Input, &doc); err != nil {
				t.Fatal(err)
			}
			if doc["type"] != "object" || doc["additionalProperties"] != false {
				t.Errorf("schema must be a closed object: %s", spec.Input)
			}
			c := jsonschema.NewCompiler()
			if err := c.AddResource(tt.name+".json", doc); err != nil {
				t.Fatal(err)
			}
			schema, err := c.Compile(tt.name + ".json")
			if err != nil {
				t.Fatal(err)
			}
			for _, args := range tt.valid {
				v, _ := jsonschema.UnmarshalJSON(strings.NewReader(args))
				if err := schema.Validate(v); err != nil {
					t.Errorf("%s rejected: %v", args, err)
				}
			}
			for _, args := range tt.invalid {
				v, _ := jsonschema.UnmarshalJSON(strings.NewReader(args))
				if err := schema.Validate(v); err == nil {
					t.Errorf("%s accepted", args)
				}
			}
		})
	}
}

// FuzzToolArgs feeds arbitrary arguments to every file tool and checks
// that none panics, none returns a Go error, and nothing outside the
// workspace changes.
func FuzzToolArgs(f *testing.F) {
	fx := newFixture(f)
	for _, seed := range []string{
		``, `null`, `[]`, `"x"`, `{}`, `{"path":"README.md"}`, `{"path":"../outside/secret.txt"}`,
		`{"path":"link-out-file","content":"x"}`, `{"path":"link-out-dir/new","content":"x"}`,
		`{"path":"link-out-dir/secret.txt","old_string":"TODO","new_string":"x"}`,
		`{"path":"README.md","old_string":"hello","new_string":"bye"}`, `{"pattern":"**"}`,
		`{"pattern":"TODO","context":3,"include":["**"]}`, `{"pattern":"(","path":".."}`,
		`{"path":"README.md","offset":1000000,"limit":1}`, `{"path":"\u0000"}`, `{"pattern":"[","path":"link-in-dir"}`,
	} {
		f.Add(seed)
	}
	tools := allTools(fx)
	f.Fuzz(func(t *testing.T, args string) {
		for _, tl := range tools {
			res, err := tl.Execute(t.Context(), json.RawMessage(args))
			if err != nil {
				t.Fatalf("%s(%s): Go error %v", tl.Spec().Name, args, err)
			}
			if !res.Success && res.Error == "" {
				t.Fatalf("%s(%s): failure without a message", tl.Spec().Name, args)
			}
			if as, ok := tl.(tool.Assessor); ok {
				_, _ = as.Assess(json.RawMessage(args))
			}
		}
		fx.secretsIntact(t)
	})
}
