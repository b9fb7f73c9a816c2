package tool_test

import (
	"encoding/json"
	"fmt"

	"github.com/talonhq/talon/tool"
)

func ExampleNormalizeArgs() {
	for _, in := range []string{"", "null", `{ "a": 1 }`, `[1]`} {
		out, err := tool.NormalizeArgs(json.RawMessage(in))
		fmt.Printf("%q -> %s %v\n", in, out, err)
	}
	// Output:
	// "" -> {} <nil>
	// "null" -> {} <nil>
	// "{ \"a\": 1 }" -> {"a":1} <nil>
	// "[1]" ->  tool arguments must be a JSON object, got an array: wrap the values in an object keyed by parameter name
}

func ExampleSchema_Validate() {
	s, _ := tool.CompileSchema("file_read", json.RawMessage(`{"type":"object","properties":{"offset":{"type":"integer"}}}`))
	fmt.Println(s.Validate(json.RawMessage(`{"offset":"two"}`)))
	// Output: invalid arguments: /offset: got string, want integer
}

func ExampleNormalize() {
	fmt.Printf("%q\n", tool.Normalize("shell", tool.Text(""), nil).Output.Text)
	fmt.Println(tool.Normalize("shell", tool.Result{}, fmt.Errorf("disk full")).Error)
	// Output:
	// "(no output)"
	// tool shell failed: disk full
}
