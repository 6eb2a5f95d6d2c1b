#!/usr/bin/env bash
# The whole test suite: set-up, build, then vitest. Ends with one plain line
# "tests: N passed, N failed, N skipped" that any CI can read.
set -euo pipefail
cd "$(dirname "$0")/.."
# Installs first (npm, apt): nothing below may run apt beside it. The build then runs in the background
# beside lint, the format check and the Docker and swarm set-up, which mostly wait on daemons (#20).
HEADSPACE_SETUP_BUILD=later bash scripts/setup.sh
echo "test: building (scripts/build.sh), in the background" >&2
build_log="$(mktemp -t headspace-build-XXXXXX.log)"
bash scripts/build.sh >"$build_log" 2>&1 &
build_pid=$!
# Lint and format checks run in the background too: one after the other, in
# front of everything, they cost ~35 s of a single core (#20). Their verdicts
# are collected before the tests start; either failing fails the run.
# Both keep a cache under node_modules/.cache keyed by each file's content
# (and their own configuration), so a rerun checks only what changed: on a
# set-up checkout they took 47 s of CPU cold and 5 s warm (#20). A fresh
# clone starts without one.
echo "test: lint (eslint src) and format (prettier --check; npm run format fixes it), in the background" >&2
npx eslint --cache --cache-strategy content --cache-location node_modules/.cache/eslint/ src &
lint_pid=$!
npx prettier --check --log-level warn --cache --cache-strategy content . &
format_pid=$!
# A Docker Engine for the docker suites (found, or started privately as root),
# its socket passed to the tests in DOCKER_HOST; and a three-node test swarm
# for the swarm suites (#22: three more dockerd in network namespaces of
# their own, about 15 s and 380 MiB). Without them those suites skip with the
# reason in HEADSPACE_DOCKER_SKIP / HEADSPACE_SWARM_SKIP, except under
# CI=true, where the set-up fails. The two set-ups run side by side when the
# engine is installed already; when either may still have to install it
# through apt, one after the other (two apt runs would collide on its lock).
# Each stopped by pid on exit when this run started it; a set-up that fails
# tears down what it made itself.
docker_out="$(mktemp -t headspace-docker-env-XXXXXX)"
swarm_out="$(mktemp -t headspace-swarm-env-XXXXXX)"
trap 'bash scripts/stop-swarm.sh "${HEADSPACE_SWARM_STATE:-}"; bash scripts/stop-docker.sh "${HEADSPACE_DOCKER_STATE:-}"' EXIT
docker_status=0
swarm_status=0
if command -v dockerd >/dev/null 2>&1 && command -v docker >/dev/null 2>&1; then
  bash scripts/setup-docker.sh >"$docker_out" &
  docker_pid=$!
  bash scripts/setup-swarm.sh >"$swarm_out" &
  swarm_pid=$!
  wait "$docker_pid" || docker_status=$?
  wait "$swarm_pid" || swarm_status=$?
else
  bash scripts/setup-docker.sh >"$docker_out" || docker_status=$?
  [ "$docker_status" = 0 ] && { bash scripts/setup-swarm.sh >"$swarm_out" || swarm_status=$?; }
fi
eval "$(cat "$docker_out")"
eval "$(cat "$swarm_out")"
rm -f "$docker_out" "$swarm_out"
if [ "$docker_status" != 0 ] || [ "$swarm_status" != 0 ]; then
  echo "test: the Docker set-up exited $docker_status, the swarm set-up $swarm_status (0 is ready)" >&2
  exit 1
fi
build_status=0
wait "$build_pid" || build_status=$?
if [ "$build_status" != 0 ]; then
  cat "$build_log" >&2
  echo "test: the build exited $build_status" >&2
  exit 1
fi
rm -f "$build_log"
echo "test: built" >&2
lint_status=0
wait "$lint_pid" || lint_status=$?
format_status=0
wait "$format_pid" || format_status=$?
if [ "$lint_status" != 0 ] || [ "$format_status" != 0 ]; then
  echo "test: lint exited $lint_status, format check exited $format_status (0 is clean)" >&2
  exit 1
fi

results="$(mktemp -t headspace-vitest-XXXXXX.json)"
status=0
npx vitest run --reporter=default --reporter=json --outputFile.json="$results" "$@" || status=$?
node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`);
  if (r.numTotalTests === 0) { console.error("no test ran"); process.exit(1); }
' "$results" || status=1
rm -f "$results"
exit "$status"
