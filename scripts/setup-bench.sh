#!/usr/bin/env bash
# Everything `npm run bench` needs on a fresh machine of this kind,
# idempotent. Called by `npm run bench`, never by `npm test` or CI:
#  0. the project's own set-up, as scripts/setup.sh does it (npm ci when
#     needed, bubblewrap, the TypeScript build), except that a host where
#     bubblewrap cannot be installed still benchmarks what it can;
#  1. apt: socat + ripgrep (Anthropic's sandbox-runtime refuses to start
#     without them), docker.io (the `docker run` peer; the daemon is started
#     by the benchmark itself, in a scratch dir, and stopped afterwards),
#     busybox-static (the rootfs of the docker base image), python3-pytest
#     (the context-economy corpus runs a real pytest inside a workspace,
#     which sees the system python, not a user's pyenv or venv);
#  2. npm: the pinned devDependency @anthropic-ai/sandbox-runtime (0.0.78:
#     the last release that supports Node 20), when node_modules lacks it.
# Past step 0 it never fails the run: what cannot be installed is reported
# here, and the peer that needs it is skipped with that reason in its table.
set -uo pipefail
cd "$(dirname "$0")/.."

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup-bench: installing npm dependencies (first time: about 2 minutes)" >&2
  npm ci --no-audit --no-fund >&2 || { echo "setup-bench: npm ci failed; nothing can be benchmarked" >&2; exit 1; }
fi
if [ "$(uname -s)" = "Linux" ]; then
  bash scripts/setup-native.sh >&2 || echo "setup-bench: bubblewrap is missing; the native contenders will be skipped with that reason" >&2
fi
echo "setup-bench: building" >&2
npx tsc -p tsconfig.json >&2 || { echo "setup-bench: the build failed; nothing can be benchmarked" >&2; exit 1; }
# The verb manifest and the CLI bundle: without them the CLI falls back to slower paths and cli-startup measures those.
node scripts/build-verb-manifest.mjs && node scripts/build-cli-bundle.mjs || { echo "setup-bench: the build failed; nothing can be benchmarked" >&2; exit 1; }

missing=()
command -v socat >/dev/null 2>&1 || missing+=(socat)
command -v rg >/dev/null 2>&1 || missing+=(ripgrep)
[ -x /usr/bin/dockerd ] || command -v dockerd >/dev/null 2>&1 || missing+=(docker.io)
[ -x /bin/busybox ] || [ -x /usr/bin/busybox ] || missing+=(busybox-static)
[ -x /usr/bin/python3 ] && ! /usr/bin/python3 -c 'import pytest' >/dev/null 2>&1 && missing+=(python3-pytest)

if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup-bench: missing ${missing[*]}; as root run: apt-get update && apt-get install -y ${missing[*]}" >&2
  elif ! command -v apt-get >/dev/null 2>&1; then
    echo "setup-bench: missing ${missing[*]} and apt-get is not available; install them with your package manager" >&2
  else
    echo "setup-bench: installing ${missing[*]} through apt" >&2
    export DEBIAN_FRONTEND=noninteractive
    # --no-install-recommends keeps docker.io from pulling in extras; the
    # packages' services do not auto-start on hosts without systemd.
    if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }; then
      echo "setup-bench: apt-get install ${missing[*]} failed; the peers that need them will be skipped" >&2
    fi
  fi
fi

if [ ! -f node_modules/@anthropic-ai/sandbox-runtime/package.json ]; then
  echo "setup-bench: installing the pinned devDependencies (sandbox-runtime)" >&2
  npm install --no-audit --no-fund >&2 || echo "setup-bench: npm install failed; the sandbox-runtime peer will be skipped" >&2
fi
exit 0
