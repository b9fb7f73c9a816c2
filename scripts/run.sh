#!/usr/bin/env bash
# Starts talon's main job on its embedded defaults, in the repository as the
# workspace, and shows how to use it.
set -euo pipefail
bin=${1:-bin/talon}
if "$bin" serve --help >/dev/null 2>&1; then
  exec "$bin" serve
fi
echo "talon catalog (embedded defaults, workspace: $(pwd))"
echo
"$bin" tools list
cat <<'TOUR'

A short tour:
  bin/talon tools show file_read                          # description, tier and schema
  bin/talon tools call file_read '{"path":"README.md","limit":5}'
  bin/talon tools list --locale ja                        # descriptions in Japanese
  bin/talon tools list --format openai                    # definitions for a model API
  bin/talon policy explain shell '{"command":"ls -la | wc -l"}'
  bin/talon config init && bin/talon config get tools.optional
TOUR
