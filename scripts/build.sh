#!/usr/bin/env bash
# The build `npm test` and `npm run build` make: the TypeScript build, the verb
# manifest, the CLI bundle, then the native provider's exec shim (C, libc only).
set -euo pipefail
cd "$(dirname "$0")/.."
npx tsc -p tsconfig.json >&2
node scripts/build-verb-manifest.mjs
node scripts/build-cli-bundle.mjs
bash scripts/build-native-helper.sh
