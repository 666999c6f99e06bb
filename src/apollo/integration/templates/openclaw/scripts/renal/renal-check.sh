#!/usr/bin/env bash
# apollo-renal: measure the current context of this OpenClaw workspace (installed by `apollo install`).
# Read-only. A thin wrapper: every argument goes to `apollo renal check` unchanged, and the
# workspace is the one this script lives in (<workspace>/scripts/renal/).
#   bash scripts/renal/renal-check.sh [--json] [--lang en] [...]
set -eu
here=$(cd "$(dirname "$0")" && pwd -P)
workspace=$(cd "$here/../.." && pwd -P)
if [ -n "${APOLLO_BIN:-}" ]; then
  set -- "$APOLLO_BIN" renal check "$@"
elif command -v apollo >/dev/null 2>&1; then
  set -- apollo renal check "$@"
elif command -v python3 >/dev/null 2>&1 && python3 -c "import apollo.cli" >/dev/null 2>&1; then
  set -- python3 -m apollo renal check "$@"
elif [ -x @APOLLO_ABS@ ]; then  # the Apollo that installed this script (a venv needs no activation)
  set -- @APOLLO_ABS@ renal check "$@"
else
  echo "renal-check.sh: the apollo command was not found; install it with: pip install apollo-hygiene" >&2
  exit 127
fi
export OPENCLAW_WORKSPACE_DIR="$workspace"
exec "$@"
