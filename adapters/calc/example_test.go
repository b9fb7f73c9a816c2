package calc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/talonhq/talon/adapters/calc"
)

func ExampleCalculator_Execute() {
	c := calc.NewCalculator(calc.Options{})
	for _, expression := range []string{"2 * (3 + 4)", "sqrt(2)", "1 / 0"} {
		args, _ := json.Marshal(map[string]string{"expression": expression})
		res, _ := c.Execute(context.Background(), args)
		if res.Success {
			fmt.Println(res.Output.Text)
		} else {
			// The message goes on with the expression and a caret.
			fmt.Println("failed:", strings.SplitN(res.Error, "\n", 2)[0])
		}
	}
	// Output:
	// 14
	// 1.41421356237
	// failed: cannot evaluate "1 / 0": division by zero: check the divisor (1:3)
}
