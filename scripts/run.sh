#!/usr/bin/env bash
# Starts talon's main job, the MCP server, on its embedded defaults with the
# repository as the workspace. The banner on standard error says how to
# connect an MCP client; Ctrl-C stops it.
set -euo pipefail
bin=${1:-bin/talon}
exec "$bin" serve
