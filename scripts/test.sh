#!/usr/bin/env bash
# The whole test suite: set-up, build, then vitest. Ends with one plain line
# "tests: N passed, N failed, N skipped" that any CI can read.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# Lint and format checks run in the background, beside each other and the
# Docker and swarm set-up below (which mostly wait on daemons): one after the
# other, in front of everything, they cost ~35 s of a single core (#20).
# Their verdicts are collected before the tests start; either failing fails
# the run, as before.
echo "test: lint (eslint src) and format (prettier --check; npm run format fixes it), in the background" >&2
npx eslint src &
lint_pid=$!
npx prettier --check --log-level warn . &
format_pid=$!
# A Docker Engine for the docker suites (found, or started privately as root),
# its socket passed to the tests in DOCKER_HOST; stopped by pid on exit when
# this run started it. Without one the docker suites skip with the reason in
# HEADSPACE_DOCKER_SKIP, except under CI=true, where setup-docker.sh fails.
docker_env="$(bash scripts/setup-docker.sh)"
eval "$docker_env"
trap 'bash scripts/stop-docker.sh "${HEADSPACE_DOCKER_STATE:-}"' EXIT
# A three-node test swarm for the swarm suites (#22): three more dockerd in
# network namespaces of their own (scripts/setup-swarm.sh, about 15 s and
# 380 MiB), torn down by pid on exit. Without root the swarm suites skip with
# the reason in HEADSPACE_SWARM_SKIP, except under CI=true.
swarm_env="$(bash scripts/setup-swarm.sh)" # on failure it tears down what it made itself
eval "$swarm_env"
trap 'bash scripts/stop-swarm.sh "${HEADSPACE_SWARM_STATE:-}"; bash scripts/stop-docker.sh "${HEADSPACE_DOCKER_STATE:-}"' EXIT
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
