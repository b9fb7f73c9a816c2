//go:build wasip1

// Command probe is a test servlet that reaches for everything a host may
// or may not grant: config, HTTP, files, logs, variables; and fails in the
// ways a Go guest can (a panic, running out of memory, spinning, an
// error it sets itself).
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/talonhq/talon/plugins/examples/servlet-go/kernel"
	"github.com/talonhq/talon/plugins/examples/servlet-go/servlet"
)

func main() {}

//go:wasmexport describe
func describe() int32 { return servlet.Describe() }

//go:wasmexport call
func call() int32 {
	var req struct {
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	in := kernel.Input()
	if json.Unmarshal(in, &req) == nil && req.Params.Name == "fail" {
		kernel.SetError("probe failed on purpose")
		return 1
	}
	return servlet.Call()
}

type args struct {
	Key   string `json:"key"`
	URL   string `json:"url"`
	Path  string `json:"path"`
	Text  string `json:"text"`
	Level string `json:"level"`
	MB    int    `json:"mb"`
}

func tool(name string, run func(a args) (servlet.Result, error)) {
	servlet.Register(servlet.Tool{Name: name, Run: func(raw json.RawMessage) (servlet.Result, error) {
		var a args
		if err := json.Unmarshal(raw, &a); err != nil {
			return servlet.Result{}, err
		}
		return run(a)
	}})
}

var sink [][]byte

func init() {
	tool("config", func(a args) (servlet.Result, error) {
		v, ok := kernel.Config(a.Key)
		if !ok {
			return servlet.Text("not set"), nil
		}
		return servlet.Text("value: " + v), nil
	})
	tool("fetch", func(a args) (servlet.Result, error) {
		status, body, err := kernel.HTTP(kernel.Request{URL: a.URL}, nil)
		if err != nil {
			return servlet.Result{}, err
		}
		return servlet.Text(fmt.Sprintf("%d %s", status, body)), nil
	})
	tool("read", func(a args) (servlet.Result, error) {
		b, err := os.ReadFile(a.Path)
		if err != nil {
			return servlet.Result{}, err
		}
		return servlet.Text(string(b)), nil
	})
	tool("write", func(a args) (servlet.Result, error) {
		if err := os.WriteFile(a.Path, []byte(a.Text), 0o644); err != nil {
			return servlet.Result{}, err
		}
		return servlet.Text("wrote " + a.Path), nil
	})
	tool("list", func(a args) (servlet.Result, error) {
		ents, err := os.ReadDir(a.Path)
		if err != nil {
			return servlet.Result{}, err
		}
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		sort.Strings(names)
		return servlet.Text(strings.Join(names, ",")), nil
	})
	tool("log", func(a args) (servlet.Result, error) {
		level := map[string]kernel.Level{"debug": kernel.Debug, "info": kernel.Info, "warn": kernel.Warn, "error": kernel.Error}[a.Level]
		kernel.Log(level, a.Text)
		return servlet.Text("logged"), nil
	})
	tool("count", func(a args) (servlet.Result, error) {
		n, _ := strconv.Atoi(string(kernel.Var("n")))
		n++
		kernel.SetVar("n", []byte(strconv.Itoa(n)))
		return servlet.Text(strconv.Itoa(n)), nil
	})
	tool("panic", func(a args) (servlet.Result, error) {
		panic("probe panics on purpose")
	})
	tool("grow", func(a args) (servlet.Result, error) {
		for i := 0; i < a.MB; i++ {
			sink = append(sink, make([]byte, 1<<20))
		}
		return servlet.Text(fmt.Sprintf("holding %d MiB", len(sink))), nil
	})
	tool("spin", func(a args) (servlet.Result, error) {
		for n := 0; ; n++ {
			if n < 0 {
				break
			}
		}
		return servlet.Text("never"), nil
	})
	tool("fail", func(a args) (servlet.Result, error) { return servlet.Text("unreachable"), nil })
}
