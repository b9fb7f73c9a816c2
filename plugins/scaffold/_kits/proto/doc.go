// Package proto is the versioned gRPC protocol between talon and its
// subprocess tool plugins: the Tools service (Describe, Call, Cancel,
// Health) generated from plugin.proto, and the go-plugin handshake both
// sides share. Arguments and results travel as JSON bytes inside the
// messages.
//
// Plugin authors use plugins/sdk, which serves this protocol; the host is
// plugins/process. The generated files are committed; `make proto`
// regenerates them and `scripts/proto.sh --check` fails when they are
// stale. The package is a module of its own,
// github.com/talonhq/talon/plugins/proto, so that a plugin built with the
// SDK depends on it and not on talon.
package proto
