// Package calc provides the calculator tool: it evaluates one arithmetic
// expression and returns the number.
//
// Expressions use numbers, the operators + - * / % and ** (or ^) for powers,
// comparisons (== != < <= > >=), and, or, not, the conditional a ? b : c,
// parentheses, the constants pi and e, and the functions sqrt, pow, abs,
// min, max, round, floor, ceil, log (natural), log10, log2, exp, sin, cos
// and tan (radians). Every number is a float64. Strings, lists, maps,
// variables, member access, closures and every expr builtin are refused
// before compilation, so an expression cannot reach anything outside its
// own arithmetic.
//
// The smallest use:
//
//	c := calc.NewCalculator(calc.Options{})
//	res, err := c.Execute(ctx, json.RawMessage(`{"expression":"2 * (3 + 4)"}`))
//	// res.Output.Text == "14"
//
// Division or remainder by zero, a result that is not a real number
// (sqrt(-1), log(0)) and overflow to infinity are failed results that say
// which operation failed.
package calc
