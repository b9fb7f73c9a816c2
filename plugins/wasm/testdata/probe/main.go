//go:build wasip1

// Command probe is a test plugin whose tools misbehave on purpose or
// exercise one host function each; plugins/wasm's tests load it.
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o probe.wasm .
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/talonhq/talon/plugins/pdk"
)

type args struct {
	Path   string `json:"path"`
	Data   string `json:"data"`
	URL    string `json:"url"`
	Name   string `json:"name"`
	Method string `json:"method"`
}

func register(name string, fn func(args) (pdk.Result, error)) {
	pdk.Register(pdk.Tool{Name: name, Description: "Probe " + name + ".", Tier: pdk.Low, Handler: pdk.Handle(fn)})
}

var hoard [][]byte

func init() {
	register("echo", func(a args) (pdk.Result, error) { return pdk.JSON(a) })
	register("spin", func(args) (pdk.Result, error) {
		n := 0
		for {
			n++
		}
	})
	register("hog", func(args) (pdk.Result, error) {
		for {
			hoard = append(hoard, make([]byte, 4<<20))
		}
	})
	register("exit", func(args) (pdk.Result, error) {
		os.Exit(3)
		return pdk.Text("unreachable"), nil
	})
	register("panic", func(args) (pdk.Result, error) { panic("boom") })
	register("http", func(a args) (pdk.Result, error) {
		resp, err := pdk.HTTP(pdk.Request{Method: a.Method, URL: a.URL})
		if err != nil {
			return pdk.Result{}, err
		}
		return pdk.Text(fmt.Sprintf("%d %s", resp.Status, resp.Body)), nil
	})
	register("read", func(a args) (pdk.Result, error) {
		b, err := pdk.ReadFile(a.Path)
		if err != nil {
			return pdk.Result{}, err
		}
		return pdk.Text(string(b)), nil
	})
	register("write", func(a args) (pdk.Result, error) {
		if err := pdk.WriteFile(a.Path, []byte(a.Data)); err != nil {
			return pdk.Result{}, err
		}
		return pdk.Text("written"), nil
	})
	register("list", func(a args) (pdk.Result, error) {
		ents, err := pdk.ReadDir(a.Path)
		if err != nil {
			return pdk.Result{}, err
		}
		b, _ := json.Marshal(ents)
		return pdk.Text(string(b)), nil
	})
	register("secret", func(a args) (pdk.Result, error) {
		s, err := pdk.Secret(a.Name)
		if err != nil {
			return pdk.Result{}, err
		}
		return pdk.Text("secret length " + fmt.Sprint(len(s))), nil
	})
	register("config", func(a args) (pdk.Result, error) {
		var v any
		if err := pdk.Config(a.Name, &v); err != nil {
			return pdk.Result{}, err
		}
		return pdk.JSON(v)
	})
	register("print", func(a args) (pdk.Result, error) {
		fmt.Println("to stdout: " + a.Data)
		fmt.Fprintln(os.Stderr, "to stderr: "+a.Data)
		pdk.Log(pdk.LevelWarn, "via log: "+a.Data)
		return pdk.Text("printed"), nil
	})
}

func main() {}
