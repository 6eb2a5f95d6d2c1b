#!/usr/bin/env bash
# The worked example, end to end, on the default provider (native on Linux):
# create a closed workspace, run a Python calculation that declares the
# artifact it writes, export that artifact (digest-verified) and check it on
# the host, run a failing job and drill into its log, destroy. Each step
# prints its bounded result package; the exit code is shown after it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

export HEADSPACE_HOME="${HEADSPACE_HOME:-$(mktemp -d -t headspace-example-XXXXXX)}"
hs() {
  printf '\n$ headspace %s\n' "$*"
  local code=0
  ./bin/headspace "$@" || code=$?
  printf '(exit %s)\n' "$code"
  return 0
}

echo "example: state in HEADSPACE_HOME=$HEADSPACE_HOME"
hs create --workspace-id demo --purpose "worked example" --memory-bytes 256M --wall-clock-seconds 60
hs run --job-id job-pi --declare report.json="pi to 10 digits, with a sanity check" demo python3 -c "
import json, math
value = round(math.pi, 10)
check = abs(value - 3.1415926536) < 1e-9
with open('report.json', 'w') as f:
    json.dump({'pi': value, 'check_passed': check}, f)
print(f'pi={value} check_passed={check}')
"
out="$(mktemp -d -t headspace-example-out-XXXXXX)"
hs export demo report.json --to "$out/report.json"
printf '\n$ cat %s\n' "$out/report.json"
cat "$out/report.json"; echo
printf '$ sha256sum %s\n' "$out/report.json"
sha256sum "$out/report.json"
hs run --job-id job-fail demo python3 -c "
for i in range(5000):
    print(f'step {i}: fine')
raise SystemExit('fatal: the answer drifted at step 4999')
"
hs logs job-fail --grep fatal
hs inspect demo
hs destroy demo
