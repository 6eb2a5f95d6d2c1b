#!/usr/bin/env bash
# Regenerates the finding-parser fixtures (#13 item 3) by running the real
# tools on the small programs kept in test/fixtures/findings/<tool>/, each of
# which fails in known ways. The outputs (*.out.txt) are committed; the parser
# tests assert the facts in them. Each program is copied to a fixed scratch
# directory first, so absolute paths in the outputs do not depend on where
# the repository is checked out.
#
# Needs: python3 with pytest, node (vitest, tsc and eslint from node_modules),
# gcc, cargo, go (Debian's golang-go). A missing tool skips its fixtures with
# a message; existing outputs are left as they are.
#
# Usage: bash scripts/make-finding-fixtures.sh [tool ...]   (default: all)
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
fixtures="$root/test/fixtures/findings"
bin="$root/node_modules/.bin"
scratch=/tmp/headspace-findings
export NO_COLOR=1 FORCE_COLOR=0 RUST_BACKTRACE=0 PYTHONDONTWRITEBYTECODE=1 LC_ALL=C.UTF-8

have() { command -v "$1" >/dev/null 2>&1 || { echo "skip $2: $1 not found" >&2; return 1; }; }

# stage TOOL: a fresh scratch copy of the tool's sources; prints its path.
stage() {
  rm -rf "${scratch:?}/$1" && mkdir -p "$scratch/$1" && cp -r "$fixtures/$1/." "$scratch/$1/"
  find "$scratch/$1" -name '*.out.txt' -delete
  echo "$scratch/$1"
}

# capture TOOL NAME CMD...: runs CMD in the staged copy, stdout and stderr interleaved as a job log has them.
capture() {
  local tool="$1" name="$2"
  shift 2
  (cd "$scratch/$tool" && "$@") >"$fixtures/$tool/$name.out.txt" 2>&1
  echo "wrote $tool/$name.out.txt (exit $?)" >&2
}

make_pytest() {
  have pytest pytest || return 0
  stage pytest >/dev/null && capture pytest default pytest -p no:cacheprovider -p no:benchmark -p no:hypothesispytest
  capture pytest quiet pytest -q -p no:cacheprovider -p no:benchmark -p no:hypothesispytest
  stage pytest-many >/dev/null && capture pytest-many default pytest -q -p no:cacheprovider -p no:benchmark -p no:hypothesispytest
}

make_unittest() {
  have python3 unittest || return 0
  stage unittest >/dev/null && capture unittest default python3 -m unittest
}

make_node_test() {
  stage node-test >/dev/null
  capture node-test spec node --test --test-reporter=spec
  capture node-test tap node --test --test-reporter=tap
}

make_vitest() {
  local dir
  dir="$(stage vitest)"
  ln -s "$root/node_modules" "$dir/node_modules"
  echo 'export default {};' >"$dir/vitest.config.mjs"
  capture vitest default "$bin/vitest" run
}

make_tsc() {
  stage tsc >/dev/null
  capture tsc plain "$bin/tsc" -p . --pretty false
  capture tsc pretty "$bin/tsc" -p . --pretty true
}

make_eslint() {
  local dir
  dir="$(stage eslint)"
  ln -s "$root/node_modules" "$dir/node_modules"
  capture eslint stylish "$bin/eslint" src
}

make_gcc() {
  have gcc gcc || return 0
  local dir
  dir="$(stage gcc)"
  # The storm: 200 distinct undeclared identifiers, one error each (plus gcc's notes and caret lines).
  { echo 'int main(void) {'; for i in $(seq 0 199); do echo "    int v$i = missing_$i;"; done; echo '    return 0;'; echo '}'; } >"$dir/storm.c"
  capture gcc small gcc -Wall -c small.c -o /dev/null
  capture gcc storm gcc -c storm.c -o /dev/null
}

make_rustc() {
  have cargo rustc || return 0
  stage rustc >/dev/null
  capture rustc badcrate bash -c 'cd badcrate && cargo build --quiet --target-dir ../target'
  capture rustc warncrate bash -c 'cd warncrate && cargo build --quiet --target-dir ../target'
  stage cargo-test >/dev/null && capture cargo-test default cargo test --target-dir target
}

make_python() {
  have python3 python || return 0
  stage python >/dev/null
  capture python crash python3 -u crash2.py
  capture python chained python3 -u crash.py
  capture python syntax python3 -u broken.py
}

make_go() {
  have go go || return 0
  export GOFLAGS=-mod=mod GOPROXY=off GOCACHE="$scratch/go-cache" GOPATH="$scratch/go-path"
  stage go-test >/dev/null
  capture go-test plain go test ./...
  capture go-test verbose go test -v ./...
  capture go-test json go test -json ./...
  stage go-build >/dev/null && capture go-build default go build ./...
}

mkdir -p "$scratch"
tools=("$@")
[ ${#tools[@]} -eq 0 ] && tools=(pytest unittest node_test vitest tsc eslint gcc rustc python go)
for tool in "${tools[@]}"; do "make_${tool//-/_}"; done
