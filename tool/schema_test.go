package tool_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"testing"

	santhosh "github.com/santhosh-tekuri/jsonschema/v6"

	_ "github.com/talonhq/talon/adapters/standard"
	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/runtime"
	"github.com/talonhq/talon/tool"
)

// extraSchemas exercise the keywords the built-in tools do not use, as
// plugins and MCP servers may.
var extraSchemas = []string{
	`{"type":"object","properties":{"e":{"enum":["a",1,null,{"x":[1]}]},"c":{"const":2}}}`,
	`{"type":"object","properties":{"n":{"type":"number","exclusiveMinimum":0,"maximum":10,"multipleOf":0.5}}}`,
	`{"type":"object","properties":{"s":{"type":"string","minLength":2,"maxLength":4,"pattern":"^[a-z]+$"}}}`,
	`{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer"},"minItems":1,"maxItems":3,"uniqueItems":true}}}`,
	`{"type":"object","properties":{"t":{"type":"array","prefixItems":[{"type":"string"},{"type":"boolean"}],"items":false}}}`,
	`{"type":"object","properties":{"o":{"oneOf":[{"type":"string"},{"type":"integer","minimum":3}]},"any":{"anyOf":[{"type":"null"},{"type":"boolean"}]},"not":{"not":{"type":"string"}}}}`,
	`{"type":"object","minProperties":1,"maxProperties":2,"propertyNames":{"pattern":"^[a-z]+$"}}`,
	`{"type":"object","dependentRequired":{"a":["b"]},"patternProperties":{"^x":{"type":"integer"}},"additionalProperties":{"type":"string"}}`,
	`{"type":"object","if":{"properties":{"k":{"const":"num"}},"required":["k"]},"then":{"required":["v"]},"else":{"not":{"required":["v"]}}}`,
	`{"type":"object","$defs":{"pos":{"type":"integer","minimum":1}},"properties":{"p":{"$ref":"#/$defs/pos"},"l":{"type":"array","contains":{"$ref":"#/$defs/pos"},"minContains":2}}}`,
	`{"type":"object","allOf":[{"required":["a"]},{"properties":{"a":{"type":["string","null"]}}}],"unevaluatedProperties":false}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false,"required":["a"]}`,
}

// schemas returns every input schema of the full built-in catalog and the
// extra ones.
func schemas(t testing.TB) []string {
	t.Helper()
	cfg := config.Default()
	all := []string{"*"}
	cfg.Tools.Optional = &all
	ws := t.TempDir()
	rt, err := runtime.New(runtime.Options{Config: cfg, Workspace: ws, DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range rt.Catalog().Entries() {
		out = append(out, string(e.Spec.Input))
	}
	sort.Strings(out)
	return append(out, extraSchemas...)
}

// verdicts compiles one schema with both validators.
type verdicts struct {
	talon *tool.Schema
	ref   *santhosh.Schema
}

func compileBoth(t testing.TB, i int, raw string) verdicts {
	t.Helper()
	mine, err := tool.CompileSchema(fmt.Sprint("s", i), json.RawMessage(raw))
	if err != nil {
		t.Fatalf("schema %d: %v\n%s", i, err, raw)
	}
	doc, err := santhosh.UnmarshalJSON(bytes.NewReader([]byte(raw)))
	if err != nil {
		t.Fatal(err)
	}
	c := santhosh.NewCompiler()
	url := fmt.Sprintf("https://talon.invalid/tools/s%d.json", i)
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	ref, err := c.Compile(url)
	if err != nil {
		t.Fatalf("schema %d: the reference validator refuses it: %v", i, err)
	}
	return verdicts{mine, ref}
}

// exactNumbers reports whether every number in v is exactly a float64, the
// precision talon's validator reads numbers at; beyond it the two
// validators may differ (1.0000000000000001 is 1 to one, not an integer to
// the other).
func exactNumbers(v any) bool {
	switch x := v.(type) {
	case json.Number:
		r, ok := new(big.Rat).SetString(string(x))
		if !ok {
			return false
		}
		_, exact := r.Float64()
		return exact
	case map[string]any:
		for _, e := range x {
			if !exactNumbers(e) {
				return false
			}
		}
	case []any:
		for _, e := range x {
			if !exactNumbers(e) {
				return false
			}
		}
	}
	return true
}

// compare checks that both validators accept or both refuse args.
func (v verdicts) compare(t *testing.T, schema string, args []byte) {
	t.Helper()
	inst, err := santhosh.UnmarshalJSON(bytes.NewReader(args))
	if err != nil || !exactNumbers(inst) {
		return
	}
	if _, ok := inst.(map[string]any); !ok {
		return
	}
	mine := v.talon.Validate(json.RawMessage(args))
	ref := v.ref.Validate(inst)
	if (mine == nil) != (ref == nil) {
		t.Fatalf("schema %s\nargs %s\ntalon: %v\nreference: %v", schema, args, mine, ref)
	}
}

var instances = []string{
	`{}`, `{"path":"a"}`, `{"path":7}`, `{"path":"a","offset":0}`, `{"path":"a","offset":1.5}`, `{"command":"ls"}`,
	`{"e":"a"}`, `{"e":{"x":[1.0]}}`, `{"e":"b"}`, `{"c":2.0}`, `{"n":5.5}`, `{"n":0}`, `{"n":5.25}`, `{"s":"ab"}`, `{"s":"ABC"}`,
	`{"s":"日本"}`, `{"a":[1,1]}`, `{"a":[1,2.0]}`, `{"a":[]}`, `{"t":["x",true]}`, `{"t":["x",true,1]}`, `{"o":"x"}`, `{"o":5}`,
	`{"o":1}`, `{"any":null}`, `{"not":"s"}`, `{"ab":1,"cd":2,"ef":3}`, `{"A":1}`, `{"a":1}`, `{"a":1,"b":2}`, `{"x1":1.5}`,
	`{"k":"num"}`, `{"k":"num","v":1}`, `{"v":1}`, `{"p":0}`, `{"l":[1,2]}`, `{"l":[1,0,3]}`, `{"a":null}`, `{"a":"x","z":1}`,
	`{"expression":"1+1"}`, `{"pattern":"x","path":"."}`, `{"url":"http://x"}`, `{"query":"q","limit":-1}`,
}

// TestSchemaVerdictsMatchReference runs every schema against a corpus of
// arguments with talon's validator and a reference implementation
// (santhosh-tekuri/jsonschema, a test-only dependency): both accept or
// both refuse.
func TestSchemaVerdictsMatchReference(t *testing.T) {
	all := schemas(t)
	for i, raw := range all {
		v := compileBoth(t, i, raw)
		for _, args := range instances {
			v.compare(t, raw, []byte(args))
		}
	}
}

// FuzzSchemaVerdicts compares the two validators on arbitrary arguments.
func FuzzSchemaVerdicts(f *testing.F) {
	all := schemas(f)
	vs := make([]verdicts, len(all))
	for i, raw := range all {
		vs[i] = compileBoth(f, i, raw)
	}
	for i := range all {
		for _, args := range instances {
			f.Add(uint16(i), []byte(args))
		}
	}
	f.Fuzz(func(t *testing.T, which uint16, args []byte) {
		i := int(which) % len(all)
		vs[i].compare(t, all[i], args)
	})
}

// compileVerdicts says whether each validator takes raw as a schema.
func compileVerdicts(raw []byte) (mine, ref bool) {
	_, err := tool.CompileSchema("x", raw)
	mine = err == nil
	doc, err := santhosh.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return mine, false
	}
	c := santhosh.NewCompiler()
	if c.AddResource("https://talon.invalid/tools/x.json", doc) != nil {
		return mine, false
	}
	_, err = c.Compile("https://talon.invalid/tools/x.json")
	return mine, err == nil
}

// Schemas the meta-schema refuses are refused, as the reference
// implementation refuses them.
func TestSchemaCompileMatchesReference(t *testing.T) {
	for _, raw := range []string{
		`{"type":"object"}`, `{}`, `{"type":"object","properties":{"x":{"type":"strange"}}}`,
		`{"type":"object","properties":{"x":{"type":["string","string"]}}}`, `{"type":"object","properties":{"x":{"type":[]}}}`,
		`{"type":"object","properties":{"x":{"minLength":-1}}}`, `{"type":"object","properties":{"x":{"maxItems":1.5}}}`,
		`{"type":"object","properties":{"x":{"multipleOf":0}}}`, `{"type":"object","properties":{"x":{"multipleOf":-2}}}`,
		`{"type":"object","required":["a","a"]}`, `{"type":"object","properties":{"x":{"pattern":"("}}}`,
		`{"type":"object","properties":"x"}`, `{"type":"object","properties":{"x":3}}`, `{"type":"object","enum":"x"}`,
		`{"type":"object","dependentRequired":{"a":["b","b"]}}`, `{"type":"object","allOf":[]}`,
		`{"type":"object","$defs":{"d":{"type":"nope"}}}`, `{"type":"object","properties":{"x":{"items":{"type":"bad"}}}}`,
		`{"type":"object","properties":{"x":{"$ref":"#/$defs/missing"}}}`, `{"type":"object","minimum":"1"}`,
		`{"type":"object","properties":{"a":{"type":"integer","minimum":1,"exclusiveMaximum":10}}}`,
	} {
		mine, ref := compileVerdicts([]byte(raw))
		if mine != ref {
			t.Errorf("%s: talon compiles it: %v, the reference: %v", raw, mine, ref)
		}
	}
}

// FuzzSchemaCompile compares which schemas the two validators take. A
// $schema or a remote $ref is left out: talon validates unknown drafts as
// 2020-12 and loads nothing, where the reference tries to fetch them.
func FuzzSchemaCompile(f *testing.F) {
	for _, s := range append(extraSchemas, `{"type":"object","properties":{"x":{"type":"strange"}}}`, `{"type":"object","required":["a","a"]}`) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var m map[string]any
		if json.Unmarshal(raw, &m) != nil || m == nil || bytes.Contains(raw, []byte(`$schema`)) || bytes.Contains(raw, []byte(`$ref`)) || bytes.Contains(raw, []byte(`$id`)) {
			return
		}
		if tp, ok := m["type"]; ok && tp != "object" {
			return
		}
		if mine, ref := compileVerdicts(raw); mine != ref {
			_, err := tool.CompileSchema("x", raw)
			t.Fatalf("%s: talon compiles it: %v (%v), the reference: %v", raw, mine, err, ref)
		}
	})
}
