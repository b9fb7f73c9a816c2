#!/usr/bin/env bash
# Regenerates the Go code of the subprocess plugin protocol
# (plugins/proto/plugin.proto) with protoc and the Go generators at pinned
# versions, fetched through the Go module proxy.
#
#   scripts/proto.sh           regenerate plugins/proto/*.pb.go in place
#   scripts/proto.sh --check   regenerate into a temp dir and fail when the
#                              committed files are stale
#
# protoc comes from Debian's protobuf-compiler package; it is installed with
# apt-get when missing and this runs as root. The protoc version line in the
# generated headers is ignored by --check, so distributions with another
# protoc do not fail the check for that alone.
set -euo pipefail

PROTOC_GEN_GO=google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.6
PROTOC_GEN_GO_GRPC=google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.3.0

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

check=0
case "${1:-}" in
--check) check=1 ;;
"") ;;
*)
	echo "usage: scripts/proto.sh [--check]" >&2
	exit 2
	;;
esac

if ! command -v protoc >/dev/null 2>&1; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "installing protobuf-compiler with apt-get" >&2
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq protobuf-compiler >/dev/null
	else
		echo "protoc is not installed: install Debian's protobuf-compiler (sudo apt-get install protobuf-compiler) and run this again" >&2
		exit 1
	fi
fi

gobin="$(go env GOCACHE)/talon-proto-bin"
mkdir -p "$gobin"
GOBIN="$gobin" GOFLAGS=-mod=mod go install "$PROTOC_GEN_GO"
GOBIN="$gobin" GOFLAGS=-mod=mod go install "$PROTOC_GEN_GO_GRPC"

out=plugins/proto
if [ $check = 1 ]; then
	out=$(mktemp -d)
	trap 'rm -rf "$out"' EXIT
fi

PATH="$gobin:$PATH" protoc -I plugins/proto \
	--go_out="$out" --go_opt=paths=source_relative \
	--go-grpc_out="$out" --go-grpc_opt=paths=source_relative \
	plugins/proto/plugin.proto

[ $check = 0 ] && exit 0

stale=0
for f in plugin.pb.go plugin_grpc.pb.go; do
	if ! diff -u \
		<(grep -Ev '^//[[:space:]]+protoc[[:space:]]+(v|\(unknown\))' "plugins/proto/$f" 2>/dev/null || true) \
		<(grep -Ev '^//[[:space:]]+protoc[[:space:]]+(v|\(unknown\))' "$out/$f"); then
		stale=1
	fi
done
if [ $stale = 1 ]; then
	echo "plugins/proto is stale: run make proto and commit the result" >&2
	exit 1
fi
