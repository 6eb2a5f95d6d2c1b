#!/usr/bin/env bash
# Everything the project needs on a fresh machine, idempotent:
#  1. npm dependencies (better-sqlite3 compiles from source here: about 80 s once);
#  2. system packages for the native provider (bubblewrap), through apt when
#     root — otherwise it stops and prints the one command to run;
#  3. chromium for the dashboard's browser tests (scripts/setup-ui.sh: apt when
#     root; without it those tests skip, except under CI=true);
#  4. the TypeScript build, the CLI bundle, then the native provider's exec shim (C, libc only).
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

echo "setup: building" >&2
npx tsc -p tsconfig.json >&2
node scripts/build-verb-manifest.mjs
node scripts/build-cli-bundle.mjs
bash scripts/build-native-helper.sh
