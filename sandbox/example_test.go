//go:build unix

package sandbox_test

import (
	"context"
	"fmt"
	"time"

	"github.com/talonhq/talon/sandbox"
)

func ExampleRun() {
	out := sandbox.Run(context.Background(), sandbox.Cmd{
		Argv:    []string{"echo", "hello"},
		Env:     []string{"PATH=/usr/bin:/bin"},
		Timeout: 5 * time.Second,
	})
	if out.Err != nil {
		fmt.Println(out.Err)
		return
	}
	fmt.Printf("exit %d: %s", out.ExitCode, out.Stdout)
	// Output:
	// exit 0: hello
}

func ExampleNewCapWriter() {
	w := sandbox.NewCapWriter(5, sandbox.Discard, nil)
	fmt.Fprint(w, "hello, world")
	fmt.Print(w.String())
	// Output:
	// hello
	// [output truncated at 5 bytes]
}

func ExampleStart() {
	// The shell wires pipes between commands itself, so it builds each
	// command here and starts it in a process group of its own.
	cmd := sandbox.CommandContext(context.Background(), "sleep", "30")
	if err := sandbox.Start(cmd); err != nil {
		fmt.Println(err)
		return
	}
	// A timeout, a cancellation or an output cap kills the whole group.
	if err := sandbox.KillGroup(cmd.Process); err != nil {
		fmt.Println(err)
	}
	_ = cmd.Wait()
	status, _ := sandbox.SignalStatus(cmd.ProcessState)
	fmt.Println("status", status)
	// Output:
	// status 137
}

func ExampleStatus_Summary() {
	fmt.Println(sandbox.Status{Mode: sandbox.Off}.Summary())
	fmt.Println(sandbox.Status{Active: true, ABI: 7, Filesystem: true, Connect: true, Bind: true}.Summary())
	// Output:
	// off
	// landlock-v7 fs+net
}

func ExampleParseMode() {
	m, err := sandbox.ParseMode("required")
	fmt.Println(m, err)
	_, err = sandbox.ParseMode("strict")
	fmt.Println(err)
	// Output:
	// required <nil>
	// unknown sandbox mode "strict": use auto, required or off
}
