package calc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"

	"github.com/talonhq/talon/tool"
)

// Name is the calculator's model-visible name.
const Name = "calculator"

// DefaultMaxExpressionBytes is the longest expression accepted when
// [Options.MaxExpressionBytes] is zero.
const DefaultMaxExpressionBytes = 1024

const (
	// maxNodes bounds the parsed expression; 1024 bytes cannot need more.
	maxNodes = 2048
	// memoryBudget bounds what the expr VM may allocate. The allowed
	// language allocates nothing, so this is a second line of defence.
	memoryBudget = 1 << 12
	// maxExactInteger is 2^53: below it every integer is exact in a
	// float64 and is printed without a fraction.
	maxExactInteger = 1 << 53
)

var (
	errDivisionByZero = errors.New("division by zero: check the divisor")
	errNotReal        = errors.New("the result is not a real number")
	errOverflow       = errors.New("the result is too large to represent")
)

// Options configures a [Calculator]. The zero value is the default.
type Options struct {
	// MaxExpressionBytes is the longest expression accepted; zero means
	// [DefaultMaxExpressionBytes].
	MaxExpressionBytes int
}

// Calculator is the calculator tool. It is stateless and safe for
// concurrent use.
type Calculator struct {
	maxBytes int
	schema   json.RawMessage
	options  []expr.Option
}

var _ tool.Tool = (*Calculator)(nil)

// NewCalculator returns the calculator tool.
func NewCalculator(opts Options) *Calculator {
	limit := opts.MaxExpressionBytes
	if limit <= 0 {
		limit = DefaultMaxExpressionBytes
	}
	schema := fmt.Sprintf(`{"type":"object","properties":{"expression":{"type":"string","minLength":1,"maxLength":%d}},"required":["expression"],"additionalProperties":false}`, limit)
	return &Calculator{maxBytes: limit, schema: json.RawMessage(schema), options: compileOptions()}
}

// Spec describes the calculator. Its description comes from the message
// catalog (tool-calculator).
func (c *Calculator) Spec() tool.Spec {
	return tool.Spec{
		Name:        Name,
		Input:       c.schema,
		Tier:        tool.Low,
		Attribution: tool.Attribution{Kind: tool.KindBuiltin, Alias: Name},
	}
}

// Result is the calculator's Output.Data.
type Result struct {
	Expression string `json:"expression"`
	// Value is a float64 for arithmetic or a bool for a comparison.
	Value any `json:"result"`
}

type args struct {
	Expression *string `json:"expression"`
}

// Execute evaluates the expression. Every problem with the expression is a
// failed result; a Go error is never returned.
func (c *Calculator) Execute(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	if err := ctx.Err(); err != nil {
		return tool.Result{}, err
	}
	var a args
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return tool.Failure("invalid arguments: %v: pass an object like {\"expression\": \"2 * (3 + 4)\"}", err), nil
	}
	if a.Expression == nil || strings.TrimSpace(*a.Expression) == "" {
		return tool.Failure("expression is required: pass the arithmetic to evaluate, for example {\"expression\": \"2 * (3 + 4)\"}"), nil
	}
	src := *a.Expression
	if len(src) > c.maxBytes {
		return tool.Failure("expression is %d bytes long; the limit is %d: split the calculation into smaller steps", len(src), c.maxBytes), nil
	}
	v, err := c.evaluate(src)
	if err != nil {
		return tool.Failure("cannot evaluate %q: %v", src, err), nil
	}
	return tool.Result{
		Success: true,
		Output:  tool.Output{Text: format(v), Data: Result{Expression: src, Value: v}},
	}, nil
}

// evaluate returns a float64 or a bool.
func (c *Calculator) evaluate(src string) (any, error) {
	tree, err := parser.Parse(src)
	if err != nil {
		// Compile again for expr's message with the source excerpt.
		if _, cerr := expr.Compile(src, c.options...); cerr != nil {
			return nil, cerr
		}
		return nil, err
	}
	var chk checker
	ast.Walk(&tree.Node, &chk)
	if chk.err != nil {
		return nil, chk.err
	}
	program, err := expr.Compile(src, c.options...)
	if err != nil {
		return nil, err
	}
	machine := vm.VM{MemoryBudget: memoryBudget}
	out, err := machine.Run(program, constants())
	if err != nil {
		return nil, err
	}
	switch v := out.(type) {
	case float64:
		if err := finite(v); err != nil {
			return nil, err
		}
		if v == 0 {
			v = 0 // no negative zero in output
		}
		return v, nil
	case bool:
		return v, nil
	default:
		return nil, fmt.Errorf("the expression produced %T, not a number: use arithmetic only", out)
	}
}

// format renders integers below 2^53 without a fraction and every other
// number with up to 12 significant digits.
func format(v any) string {
	switch v := v.(type) {
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < maxExactInteger {
			return strconv.FormatFloat(v, 'f', -1, 64)
		}
		return strconv.FormatFloat(v, 'g', 12, 64)
	case bool:
		return strconv.FormatBool(v)
	}
	return fmt.Sprint(v)
}

func finite(v float64) error {
	switch {
	case math.IsNaN(v):
		return fmt.Errorf("%w: check the arguments (square root or logarithm of a negative number?)", errNotReal)
	case math.IsInf(v, 0):
		return fmt.Errorf("%w: it overflows to infinity; use smaller numbers", errOverflow)
	}
	return nil
}

// constants is the whole environment an expression sees.
func constants() map[string]any {
	return map[string]any{"pi": math.Pi, "e": math.E}
}

type unary = func(float64) float64
type binary = func(float64, float64) float64
type variadic = func(float64, ...float64) float64

// functions are callable by name from expressions.
var functions = map[string]any{
	"sqrt":  unary(math.Sqrt),
	"abs":   unary(math.Abs),
	"round": unary(math.Round),
	"floor": unary(math.Floor),
	"ceil":  unary(math.Ceil),
	"log":   unary(math.Log),
	"log10": unary(math.Log10),
	"log2":  unary(math.Log2),
	"exp":   unary(math.Exp),
	"sin":   unary(math.Sin),
	"cos":   unary(math.Cos),
	"tan":   unary(math.Tan),
	"pow":   binary(math.Pow),
	"min":   variadic(minOf),
	"max":   variadic(maxOf),
}

// operators replace expr's built-in arithmetic so that every step is
// checked: names starting with "op" are not callable from expressions.
var operators = []struct {
	symbol, fn string
	f          binary
}{
	{"+", "op_add", func(a, b float64) float64 { return a + b }},
	{"-", "op_sub", func(a, b float64) float64 { return a - b }},
	{"*", "op_mul", func(a, b float64) float64 { return a * b }},
	{"/", "op_div", func(a, b float64) float64 { return a / b }},
	{"%", "op_mod", math.Mod},
	{"**", "op_pow", math.Pow},
	{"^", "op_pow", math.Pow},
}

func minOf(first float64, rest ...float64) float64 {
	m := first
	for _, v := range rest {
		m = math.Min(m, v)
	}
	return m
}

func maxOf(first float64, rest ...float64) float64 {
	m := first
	for _, v := range rest {
		m = math.Max(m, v)
	}
	return m
}

// compileOptions is the restricted configuration: no builtins, integer
// literals turned into floats, checked operators and the functions above.
func compileOptions() []expr.Option {
	opts := []expr.Option{
		expr.Env(constants()),
		expr.DisableAllBuiltins(),
		expr.MaxNodes(maxNodes),
		expr.Patch(floatLiterals{}),
	}
	names := make([]string, 0, len(functions))
	for name := range functions {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		opts = append(opts, function(name, functions[name]))
	}
	seen := map[string]bool{}
	for _, op := range operators {
		if !seen[op.fn] {
			seen[op.fn] = true
			opts = append(opts, function(op.fn, op.f))
		}
		opts = append(opts, expr.Operator(op.symbol, op.fn))
	}
	return opts
}

// function wraps a typed math function so that a non-finite result from
// finite arguments, or a division by zero, is an error naming the call.
func function(name string, f any) expr.Option {
	call := func(params ...any) (any, error) {
		xs := make([]float64, len(params))
		for i, p := range params {
			x, ok := p.(float64)
			if !ok {
				return nil, fmt.Errorf("%s: argument %d is %T, not a number", display(name), i+1, p)
			}
			xs[i] = x
		}
		if (name == "op_div" || name == "op_mod") && len(xs) == 2 && xs[1] == 0 {
			return nil, errDivisionByZero
		}
		var r float64
		switch f := f.(type) {
		case unary:
			if len(xs) != 1 {
				return nil, fmt.Errorf("%s takes 1 argument, got %d", display(name), len(xs))
			}
			r = f(xs[0])
		case binary:
			if len(xs) != 2 {
				return nil, fmt.Errorf("%s takes 2 arguments, got %d", display(name), len(xs))
			}
			r = f(xs[0], xs[1])
		case variadic:
			if len(xs) == 0 {
				return nil, fmt.Errorf("%s needs at least 1 argument", name)
			}
			r = f(xs[0], xs[1:]...)
		default:
			return nil, fmt.Errorf("%s has no implementation", name)
		}
		for _, x := range xs {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return r, nil // already reported where it arose
			}
		}
		if err := finite(r); err != nil {
			if sym := display(name); sym != name && len(xs) == 2 {
				return nil, fmt.Errorf("%s %s %s: %w", format(xs[0]), sym, format(xs[1]), err)
			}
			return nil, fmt.Errorf("%s(%s): %w", name, joinArgs(xs), err)
		}
		return r, nil
	}
	return expr.Function(name, call, f)
}

// display names an operator function by its symbol in messages.
func display(name string) string {
	for _, op := range operators {
		if op.fn == name {
			return op.symbol
		}
	}
	return name
}

func joinArgs(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = format(x)
	}
	return strings.Join(parts, ", ")
}

// floatLiterals makes every integer literal a float64, so that arithmetic
// never wraps around the way int64 does.
type floatLiterals struct{}

func (floatLiterals) Visit(node *ast.Node) {
	if n, ok := (*node).(*ast.IntegerNode); ok {
		ast.Patch(node, &ast.FloatNode{Value: float64(n.Value)})
	}
}

var (
	allowedUnary  = map[string]bool{"-": true, "+": true, "!": true, "not": true}
	allowedBinary = map[string]bool{
		"+": true, "-": true, "*": true, "/": true, "%": true, "**": true, "^": true,
		"==": true, "!=": true, "<": true, "<=": true, ">": true, ">=": true,
		"and": true, "or": true, "&&": true, "||": true,
	}
)

// checker refuses every construct outside plain arithmetic. ast.Walk visits
// children before parents, so the last problem recorded is the outermost
// one, which names the construct the way the author wrote it ("a map", not
// the map's key).
type checker struct{ err error }

func (c *checker) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.ConditionalNode:
	case *ast.IdentifierNode:
		_, constant := constants()[n.Value]
		_, fn := functions[n.Value]
		if !constant && !fn {
			c.err = fmt.Errorf("unknown name %q: %s", n.Value, vocabulary())
		}
	case *ast.UnaryNode:
		if !allowedUnary[n.Operator] {
			c.err = fmt.Errorf("operator %q is not supported: %s", n.Operator, vocabulary())
		}
	case *ast.BinaryNode:
		if !allowedBinary[n.Operator] {
			c.err = fmt.Errorf("operator %q is not supported: %s", n.Operator, vocabulary())
		}
	case *ast.CallNode:
		id, ok := n.Callee.(*ast.IdentifierNode)
		if !ok {
			c.err = fmt.Errorf("only named functions can be called: %s", vocabulary())
			return
		}
		if _, ok := functions[id.Value]; !ok {
			c.err = fmt.Errorf("unknown function %q: %s", id.Value, vocabulary())
		}
	case *ast.BuiltinNode:
		// Names such as abs and max parse as expr builtins; the compiled
		// program calls the functions of this package instead.
		if _, ok := functions[n.Name]; !ok {
			c.err = fmt.Errorf("unknown function %q: %s", n.Name, vocabulary())
		}
	case *ast.StringNode, *ast.BytesNode:
		c.err = fmt.Errorf("text is not supported: the calculator works on numbers only")
	default:
		c.err = fmt.Errorf("%s is not supported: %s", describe(n), vocabulary())
	}
}

func describe(n ast.Node) string {
	switch n.(type) {
	case *ast.ArrayNode:
		return "a list"
	case *ast.MapNode, *ast.PairNode:
		return "a map"
	case *ast.MemberNode, *ast.ChainNode:
		return "member access"
	case *ast.SliceNode:
		return "slicing"
	case *ast.VariableDeclaratorNode, *ast.SequenceNode:
		return "a variable or a sequence of expressions"
	case *ast.PredicateNode, *ast.PointerNode:
		return "a closure"
	case *ast.NilNode:
		return "nil"
	}
	return "this construct"
}

func vocabulary() string {
	names := make([]string, 0, len(functions))
	for name := range functions {
		names = append(names, name)
	}
	sort.Strings(names)
	return "use numbers, + - * / % ** (or ^), comparisons, parentheses, pi, e and the functions " + strings.Join(names, ", ")
}
