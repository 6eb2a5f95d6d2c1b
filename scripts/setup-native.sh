#!/usr/bin/env bash
# Sets up what the native provider needs on this host: bubblewrap.
# Idempotent: does nothing when bwrap is already installed. Installs it only
# when run as root; otherwise prints the one command to run and exits 1, so a
# CI step fails loudly instead of leaving a provider that probes "not ready".
set -euo pipefail

if command -v bwrap >/dev/null 2>&1; then
  echo "setup-native: bubblewrap present ($(bwrap --version))"
  exit 0
fi

install_cmd='apt-get update && apt-get install -y bubblewrap'
if [ "$(id -u)" -ne 0 ]; then
  echo "setup-native: bubblewrap is missing; run as root: sudo sh -c '${install_cmd}'" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup-native: bubblewrap is missing and apt-get is not available; install the 'bubblewrap' package with your distribution's package manager" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq bubblewrap >/dev/null
echo "setup-native: installed $(bwrap --version)"
