#!/usr/bin/env bash
# Starts talon's main job, the MCP server, on its embedded defaults with the
# repository as the workspace. The banner on standard error says how to
# connect an MCP client; Ctrl-C stops it.
#
#   scripts/run.sh [BINARY [FLAG...]]   LISTEN=HOST:PORT sets --listen
set -euo pipefail
bin=${1:-bin/talon}
shift || true
args=(serve)
if [[ -n "${LISTEN:-}" ]]; then
	args+=(--listen "$LISTEN")
fi
exec "$bin" "${args[@]}" "$@"
