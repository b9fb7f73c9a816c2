#!/usr/bin/env bash
# npm-modules.sh DIR prints the node_modules directory holding exactly the
# packages DIR/package-lock.json pins, installing them first with `npm ci`
# when they are not there yet. Installs live outside the repository, keyed
# by the lock file's hash, under $TALON_NPM_CACHE (default: talon-npm beside
# Go's build cache), with npm's download cache next to them: a warm machine
# runs no npm at all, and a changed lock file gets a fresh install. A lock
# keeps concurrent tests from installing the same tree twice.
set -euo pipefail

dir=$(cd "$1" && pwd)
[ -f "$dir/package-lock.json" ] || { echo "npm-modules.sh: $dir has no package-lock.json" >&2; exit 2; }
cache=${TALON_NPM_CACHE:-}
if [ -z "$cache" ]; then
	gocache=$(go env GOCACHE 2>/dev/null || true)
	[ -n "$gocache" ] || { echo "npm-modules.sh: set TALON_NPM_CACHE or install Go" >&2; exit 2; }
	cache=$(dirname "$gocache")/talon-npm
fi
hash=$(cat "$dir/package.json" "$dir/package-lock.json" | sha256sum | cut -c1-16)
target=$cache/$hash
mkdir -p "$cache"

if [ ! -f "$target/.complete" ]; then
	command -v npm >/dev/null 2>&1 || { echo "npm-modules.sh: npm is not installed (Debian: apt-get install nodejs npm)" >&2; exit 1; }
	exec 9>"$cache/.lock"
	flock 9
	if [ ! -f "$target/.complete" ]; then
		rm -rf "$target"
		mkdir -p "$target"
		cp "$dir/package.json" "$dir/package-lock.json" "$target/"
		(cd "$target" && npm_config_cache="$cache/.npm" npm ci --no-audit --no-fund --ignore-scripts --loglevel=error >&2)
		touch "$target/.complete"
	fi
	exec 9>&-
fi
echo "$target/node_modules"
