#!/usr/bin/env bash
# Everything the project needs on a fresh machine, idempotent:
#  1. npm dependencies (better-sqlite3 compiles from source here: about 80 s once);
#  2. system packages for the native provider (bubblewrap), through apt when
#     root — otherwise it stops and prints the one command to run;
#  3. chromium for the dashboard's browser tests (scripts/setup-ui.sh: apt when
#     root; without it those tests skip, except under CI=true);
#  4. the build (scripts/build.sh: TypeScript, the verb manifest, the CLI bundle, the native
#     provider's exec shim), unless HEADSPACE_SETUP_BUILD=later.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: installing npm dependencies (first time: about 2 minutes)" >&2
  npm ci --no-audit --no-fund >&2
fi

if [ "$(uname -s)" = "Linux" ]; then
  bash scripts/setup-native.sh >&2
  bash scripts/setup-ui.sh >&2
fi

# HEADSPACE_SETUP_BUILD=later: the caller builds (scripts/test.sh builds beside the Docker and swarm set-up).
if [ "${HEADSPACE_SETUP_BUILD:-now}" != later ]; then
  echo "setup: building" >&2
  bash scripts/build.sh
fi
