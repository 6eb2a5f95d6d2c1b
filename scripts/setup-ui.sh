#!/usr/bin/env bash
# What the dashboard's browser tests need (#21): Debian's chromium, driven by
# playwright-core (a dev dependency, so npm ci brings it). Idempotent: does
# nothing when /usr/bin/chromium (or $HEADSPACE_CHROMIUM) is there. Installs
# only as root through apt; otherwise it says the one command to run and
# carries on, and the browser tests skip with that reason, except under
# CI=true, where a missing chromium fails this script (CI must run them).
set -euo pipefail

chromium="${HEADSPACE_CHROMIUM:-/usr/bin/chromium}"
if [ -x "$chromium" ]; then
  echo "setup-ui: chromium present ($chromium)"
  exit 0
fi

fail() {
  echo "setup-ui: $1" >&2
  if [ "${CI:-}" = "true" ]; then exit 1; fi
  echo "setup-ui: the dashboard's browser tests will skip" >&2
  exit 0
}

if [ "$(id -u)" -ne 0 ]; then
  fail "chromium missing; run as root: sudo sh -c 'apt-get update && apt-get install -y chromium'"
fi
if ! command -v apt-get >/dev/null 2>&1; then
  fail "chromium missing and apt-get is not available; install chromium and set HEADSPACE_CHROMIUM to its path"
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq chromium >/dev/null
[ -x "$chromium" ] || fail "apt-get installed chromium but $chromium is not there; set HEADSPACE_CHROMIUM"
echo "setup-ui: installed chromium ($chromium)"
