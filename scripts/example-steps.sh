#!/usr/bin/env bash
# The worked example's steps (scripts/example.sh sets up, builds, then runs
# these): create a closed workspace, run a Python calculation that declares
# the artifact it writes, export that artifact (digest-verified) and check it
# on the host, run a failing job and drill into its log, destroy. Each step
# prints its bounded result package and its exit code, and must end with the
# exit code it expects: the first step that does not stops the example with
# that step's code (#12 item 12; it used to run on through every step).
set -euo pipefail
cd "$(dirname "$0")/.."

export HEADSPACE_HOME="${HEADSPACE_HOME:-$(mktemp -d -t headspace-example-XXXXXX)}"
# step EXPECTED ARGS…: runs `headspace ARGS…`, shows its exit code, stops unless it is EXPECTED.
step() {
  local expected="$1"
  shift
  printf '\n$ headspace %s\n' "$*"
  local code=0
  ./bin/headspace "$@" || code=$?
  printf '(exit %s)\n' "$code"
  if [ "$code" -ne "$expected" ]; then
    printf '\nexample: stopped: `headspace %s` exited %s where %s was expected (see its error above); state is in HEADSPACE_HOME=%s\n' "$1" "$code" "$expected" "$HEADSPACE_HOME" >&2
    exit "$code"
  fi
}

echo "example: state in HEADSPACE_HOME=$HEADSPACE_HOME"
step 0 create --workspace-id demo --purpose "worked example" --memory-bytes 256M --wall-clock-seconds 60
step 0 run --job-id job-pi --declare report.json="pi to 10 digits, with a sanity check" demo python3 -c "
import json, math
value = round(math.pi, 10)
check = abs(value - 3.1415926536) < 1e-9
with open('report.json', 'w') as f:
    json.dump({'pi': value, 'check_passed': check}, f)
print(f'pi={value} check_passed={check}')
"
out="$(mktemp -d -t headspace-example-out-XXXXXX)"
step 0 export demo report.json --to "$out/report.json"
printf '\n$ cat %s\n' "$out/report.json"
cat "$out/report.json"; echo
printf '$ sha256sum %s\n' "$out/report.json"
sha256sum "$out/report.json"
# This job fails on purpose (exit 6): the point is drilling into its log.
step 6 run --job-id job-fail demo python3 -c "
for i in range(5000):
    print(f'step {i}: fine')
raise SystemExit('fatal: the answer drifted at step 4999')
"
step 0 logs job-fail --grep fatal
step 0 inspect demo
step 0 destroy demo
echo
echo "example: every step ended as expected"
