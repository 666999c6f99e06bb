#!/usr/bin/env bash
# apollo-autophagy: tiered cleanup of this OpenClaw workspace (installed by `apollo install`).
# A thin wrapper: everything after the command goes to `apollo autophagy` unchanged, and the
# workspace is the one this script lives in (<workspace>/scripts/autophagy/).
usage() {
  cat <<'USAGE'
usage: autophagy.sh status|small|medium|large [options passed to `apollo autophagy`]
  status                                    what each tier would remove (read-only)
  small [--yes]                             caches, temporary files, old logs (snapshot first)
  medium                                    plan only; then: medium --confirm <plan-id>
  large                                     plan only; then: large --confirm <plan-id> --confirm-phrase 确认大自噬
USAGE
}
set -eu
if [ $# -eq 0 ]; then usage >&2; exit 2; fi
here=$(cd "$(dirname "$0")" && pwd -P)
workspace=$(cd "$here/../.." && pwd -P)
if [ -n "${APOLLO_BIN:-}" ]; then
  set -- "$APOLLO_BIN" autophagy "$@"
elif command -v apollo >/dev/null 2>&1; then
  set -- apollo autophagy "$@"
elif command -v python3 >/dev/null 2>&1 && python3 -c "import apollo.cli" >/dev/null 2>&1; then
  set -- python3 -m apollo autophagy "$@"
elif [ -x @APOLLO_ABS@ ]; then  # the Apollo that installed this script (a venv needs no activation)
  set -- @APOLLO_ABS@ autophagy "$@"
else
  echo "autophagy.sh: the apollo command was not found; install it with: pip install apollo-hygiene" >&2
  exit 127
fi
export OPENCLAW_WORKSPACE_DIR="$workspace"
exec "$@"
