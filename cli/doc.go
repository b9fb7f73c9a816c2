// Package cli implements the talon command line.
//
// Every command reads and writes through an [IOStreams] and reports failure
// by returning an error; [Main] maps errors to the documented exit codes in
// one place ([ExitCode]), so commands are testable in-process:
//
//	code := cli.Main([]string{"tools", "list", "--json"}, cli.IOStreams{In: in, Out: &out, ErrOut: &errOut})
package cli
