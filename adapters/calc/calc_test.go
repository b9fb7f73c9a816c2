package calc_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/talonhq/talon/adapters/calc"
	"github.com/talonhq/talon/tool"
)

func run(t testing.TB, c *calc.Calculator, expression string) tool.Result {
	t.Helper()
	raw, err := json.Marshal(map[string]string{"expression": expression})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Execute(context.Background(), raw)
	if err != nil {
		t.Fatalf("Execute(%q) returned a Go error: %v", expression, err)
	}
	return res
}

func TestCalculator(t *testing.T) {
	c := calc.NewCalculator(calc.Options{})
	tests := []struct {
		name       string
		expression string
		want       string
	}{
		{name: "addition", expression: "1 + 2", want: "3"},
		{name: "precedence", expression: "2 + 3 * 4", want: "14"},
		{name: "parentheses", expression: "2 * (3 + 4)", want: "14"},
		{name: "division gives a fraction", expression: "7 / 2", want: "3.5"},
		{name: "exact division is an integer", expression: "10 / 4 * 2", want: "5"},
		{name: "remainder", expression: "7 % 3", want: "1"},
		{name: "negative remainder", expression: "-7 % 3", want: "-1"},
		{name: "fractional remainder", expression: "7.5 % 2", want: "1.5"},
		{name: "power with stars", expression: "2 ** 10", want: "1024"},
		{name: "power with caret", expression: "2 ^ 0.5", want: "1.41421356237"},
		{name: "unary minus", expression: "-(3 - 5)", want: "2"},
		{name: "twelve significant digits", expression: "1 / 3", want: "0.333333333333"},
		{name: "float noise hidden", expression: "0.1 + 0.2", want: "0.3"},
		{name: "large exact integer", expression: "2 ** 52", want: "4503599627370496"},
		{name: "integer beyond 2^53", expression: "2 ** 60", want: "1.15292150461e+18"},
		{name: "int64 overflow does not wrap", expression: "9223372036854775807 * 2", want: "1.84467440737e+19"},
		{name: "small number", expression: "1 / 1000000000", want: "1e-09"},
		{name: "no negative zero", expression: "-0 * 5", want: "0"},
		{name: "scientific literal", expression: "1.5e3 + 1", want: "1501"},
		{name: "pi", expression: "pi", want: "3.14159265359"},
		{name: "e", expression: "e", want: "2.71828182846"},
		{name: "sqrt", expression: "sqrt(16)", want: "4"},
		{name: "pow", expression: "pow(3, 4)", want: "81"},
		{name: "abs", expression: "abs(-2.5)", want: "2.5"},
		{name: "min variadic", expression: "min(4, 2, 8)", want: "2"},
		{name: "max one argument", expression: "max(7)", want: "7"},
		{name: "round half away from zero", expression: "round(2.5)", want: "3"},
		{name: "floor", expression: "floor(-1.5)", want: "-2"},
		{name: "ceil", expression: "ceil(1.2)", want: "2"},
		{name: "natural log", expression: "log(e)", want: "1"},
		{name: "log10", expression: "log10(1000)", want: "3"},
		{name: "log2", expression: "log2(8)", want: "3"},
		{name: "exp", expression: "exp(0)", want: "1"},
		{name: "sin", expression: "sin(pi / 2)", want: "1"},
		{name: "cos", expression: "cos(0)", want: "1"},
		{name: "tan", expression: "tan(pi / 4)", want: "1"},
		{name: "nested calls", expression: "sqrt(pow(3, 2) + pow(4, 2))", want: "5"},
		{name: "comparison", expression: "2 > 1", want: "true"},
		{name: "logic", expression: "1 < 2 and not (3 < 2)", want: "true"},
		{name: "conditional", expression: "3 > 2 ? 10 : 20", want: "10"},
		{name: "pipe", expression: "-4 | abs()", want: "4"},
		{name: "whitespace", expression: "  1\n+\t1 ", want: "2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, c, tt.expression)
			if !res.Success {
				t.Fatalf("%q failed: %s", tt.expression, res.Error)
			}
			if res.Output.Text != tt.want {
				t.Errorf("%q = %q, want %q", tt.expression, res.Output.Text, tt.want)
			}
			data, ok := res.Output.Data.(calc.Result)
			if !ok || data.Expression != tt.expression {
				t.Errorf("Data = %#v, want the expression echoed", res.Output.Data)
			}
		})
	}
}

func TestCalculatorErrors(t *testing.T) {
	c := calc.NewCalculator(calc.Options{})
	tests := []struct {
		name    string
		args    string
		wantErr string
	}{
		{name: "division by zero", args: `{"expression":"1/0"}`, wantErr: "division by zero"},
		{name: "division by computed zero", args: `{"expression":"5 / (2 - 2)"}`, wantErr: "division by zero"},
		{name: "remainder by zero", args: `{"expression":"5 % 0"}`, wantErr: "division by zero"},
		{name: "sqrt of negative", args: `{"expression":"sqrt(-1)"}`, wantErr: "sqrt(-1): the result is not a real number"},
		{name: "log of zero", args: `{"expression":"log(0)"}`, wantErr: "too large to represent"},
		{name: "overflow", args: `{"expression":"10 ** 400"}`, wantErr: "10 ** 400: the result is too large"},
		{name: "overflow in multiplication", args: `{"expression":"1e308 * 10"}`, wantErr: "1e+308 * 10: the result is too large"},
		{name: "syntax error", args: `{"expression":"1 +"}`, wantErr: "cannot evaluate"},
		{name: "unbalanced parenthesis", args: `{"expression":"(1 + 2"}`, wantErr: "cannot evaluate"},
		{name: "unknown name", args: `{"expression":"x + 1"}`, wantErr: `unknown name "x"`},
		{name: "env access", args: `{"expression":"$env"}`, wantErr: `unknown name "$env"`},
		{name: "unknown function", args: `{"expression":"hypot(3, 4)"}`, wantErr: `unknown function "hypot"`},
		{name: "host builtin now", args: `{"expression":"now()"}`, wantErr: `unknown function "now"`},
		{name: "builtin len", args: `{"expression":"len([1, 2])"}`, wantErr: "unknown function"},
		{name: "internal operator function", args: `{"expression":"op_div(1, 0)"}`, wantErr: `unknown function "op_div"`},
		{name: "predicate", args: `{"expression":"map([1, 2], # * 2)"}`, wantErr: `unknown function "map"`},
		{name: "string", args: `{"expression":"'a' + 'b'"}`, wantErr: "numbers only"},
		{name: "list", args: `{"expression":"[1, 2]"}`, wantErr: "a list is not supported"},
		{name: "map", args: `{"expression":"{a: 1}"}`, wantErr: "a map is not supported"},
		{name: "range", args: `{"expression":"1..1000000"}`, wantErr: `operator ".." is not supported`},
		{name: "in operator", args: `{"expression":"1 in [1]"}`, wantErr: "not supported"},
		{name: "nil coalescing", args: `{"expression":"nil ?? 1"}`, wantErr: "not supported"},
		{name: "variable", args: `{"expression":"let x = 2; x * 3"}`, wantErr: "a variable or a sequence of expressions is not supported"},
		{name: "member access", args: `{"expression":"pi.x"}`, wantErr: "member access is not supported"},
		{name: "wrong argument count", args: `{"expression":"sqrt(1, 2)"}`, wantErr: "cannot evaluate"},
		{name: "bool where number needed", args: `{"expression":"sqrt(true)"}`, wantErr: "cannot evaluate"},
		{name: "integer literal too large", args: `{"expression":"99999999999999999999"}`, wantErr: "cannot evaluate"},
		{name: "too long", args: `{"expression":"` + strings.Repeat("1+", 600) + `1"}`, wantErr: "the limit is 1024"},
		{name: "missing expression", args: `{}`, wantErr: "expression is required"},
		{name: "blank expression", args: `{"expression":"  "}`, wantErr: "expression is required"},
		{name: "unknown argument", args: `{"expression":"1","x":1}`, wantErr: "invalid arguments"},
		{name: "not an object", args: `[1]`, wantErr: "invalid arguments"},
		{name: "wrong type", args: `{"expression":1}`, wantErr: "invalid arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := c.Execute(context.Background(), json.RawMessage(tt.args))
			if err != nil {
				t.Fatalf("Go error: %v", err)
			}
			if res.Success {
				t.Fatalf("succeeded with %q, want failure containing %q", res.Output.Text, tt.wantErr)
			}
			if !strings.Contains(res.Error, tt.wantErr) {
				t.Errorf("error = %q, want it to contain %q", res.Error, tt.wantErr)
			}
		})
	}
}

func TestCalculatorOptions(t *testing.T) {
	c := calc.NewCalculator(calc.Options{MaxExpressionBytes: 5})
	if res := run(t, c, "1+2+3"); !res.Success {
		t.Errorf("5-byte expression refused: %s", res.Error)
	}
	if res := run(t, c, "1+2+34"); res.Success || !strings.Contains(res.Error, "limit is 5") {
		t.Errorf("6-byte expression: %+v", res)
	}
}

func TestCalculatorCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := calc.NewCalculator(calc.Options{}).Execute(ctx, json.RawMessage(`{"expression":"1"}`)); err == nil {
		t.Error("a cancelled call must return the context error")
	}
}

func TestSpec(t *testing.T) {
	spec := calc.NewCalculator(calc.Options{}).Spec()
	if spec.Name != "calculator" || spec.Tier != tool.Low || spec.Attribution.String() != "builtin.calculator" {
		t.Errorf("spec = %+v", spec)
	}
	if err := tool.ValidateName(spec.Name); err != nil {
		t.Error(err)
	}
	var doc any
	if err := json.Unmarshal(spec.Input, &doc); err != nil {
		t.Fatal(err)
	}
	comp := jsonschema.NewCompiler()
	if err := comp.AddResource("calculator.json", doc); err != nil {
		t.Fatal(err)
	}
	schema, err := comp.Compile("calculator.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args  string
		valid bool
	}{
		{`{"expression":"1+1"}`, true},
		{`{}`, false},
		{`{"expression":""}`, false},
		{`{"expression":"1","other":2}`, false},
	} {
		var v any
		_ = json.Unmarshal([]byte(tt.args), &v)
		if err := schema.Validate(v); (err == nil) != tt.valid {
			t.Errorf("validate %s: %v, want valid=%v", tt.args, err, tt.valid)
		}
	}
	if strings.Contains(string(spec.Input), "description") {
		t.Error("the schema must leave descriptions to the message catalog")
	}
}

// FuzzCalculator checks that no expression makes the calculator panic or
// return a Go error, and that every success has text.
func FuzzCalculator(f *testing.F) {
	for _, seed := range []string{
		"1+2", "7/2", "1/0", "5%0", "sqrt(-1)", "2**1024", "((((1))))", "-(-(-1))",
		"min()", "max(1,2,3)", "pow(2)", "x", "now()", "'a'", "[1][0]", "{a:1}.a",
		"1..3", "map(1..3, #)", "let a = 1; a", "$env", "true ? 1 : 'a'", "1 |> 2",
		"abs", "sqrt(4) | pow(2)", "1e308*1e308", "0^-1", "log(-1)", "\x00", "é",
		strings.Repeat("(", 500) + "1" + strings.Repeat(")", 500),
	} {
		f.Add(seed)
	}
	c := calc.NewCalculator(calc.Options{})
	f.Fuzz(func(t *testing.T, expression string) {
		res := run(t, c, expression)
		if res.Success && res.Output.Text == "" {
			t.Fatalf("%q succeeded with empty text", expression)
		}
		if !res.Success && res.Error == "" {
			t.Fatalf("%q failed without a message", expression)
		}
	})
}
