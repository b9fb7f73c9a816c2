#!/usr/bin/env bash
# assemblyscript.sh DIR OUT.wasm compiles the AssemblyScript plugin in DIR
# (assembly/index.ts, with the packages DIR/package-lock.json pins) to
# OUT.wasm with the pinned asc. The packages come from npm-modules.sh, so a
# warm machine runs no npm; the sources are compiled in a scratch copy
# beside them and DIR is never written to.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
dir=$(cd "$1" && pwd)
out=$2
case $out in /*) ;; *) out=$PWD/$out ;; esac
command -v node >/dev/null 2>&1 || { echo "assemblyscript.sh: node is not installed (Debian: apt-get install nodejs npm)" >&2; exit 1; }
modules=$("$here/npm-modules.sh" "$dir")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -R "$dir/assembly" "$work/assembly"
ln -s "$modules" "$work/node_modules"
(cd "$work" && node node_modules/assemblyscript/bin/asc.js assembly/index.ts \
	--outFile out.wasm --optimize --noAssert --use abort=assembly/index/abort)
mkdir -p "$(dirname "$out")"
cp "$work/out.wasm" "$out"
