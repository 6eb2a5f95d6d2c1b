#!/usr/bin/env bash
# Sets up what the native provider needs on this host: bubblewrap, and
# e2fsprogs (mkfs.ext4) for the per-workspace filesystem that enforces the
# storage budget as root (without it the provider falls back to a host
# directory with storage measured only; see workspace-filesystem.ts).
# Idempotent: does nothing when both are installed. Installs only when run as
# root; otherwise prints the one command to run and exits 1, so a CI step
# fails loudly instead of leaving a provider that probes "not ready".
set -euo pipefail

missing=()
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
{ [ -x /usr/sbin/mkfs.ext4 ] || [ -x /sbin/mkfs.ext4 ]; } || missing+=(e2fsprogs)

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup-native: bubblewrap present ($(bwrap --version)); mkfs.ext4 present"
  exit 0
fi

install_cmd="apt-get update && apt-get install -y ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "setup-native: ${missing[*]} missing; run as root: sudo sh -c '${install_cmd}'" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup-native: ${missing[*]} missing and apt-get is not available; install the package(s) with your distribution's package manager" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${missing[@]}" >/dev/null
echo "setup-native: installed ${missing[*]} ($(bwrap --version))"
