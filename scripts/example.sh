#!/usr/bin/env bash
# The worked example, end to end, on the default provider (native on Linux):
# set-up and build, then scripts/example-steps.sh, which stops at the first
# step that does not end as expected (its exit code is the example's).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec bash scripts/example-steps.sh
