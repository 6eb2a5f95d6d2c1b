#!/usr/bin/env bash
# Builds the native provider's exec shim (src/providers/native/helper/
# headspace-exec.c) into dist/native/headspace-exec. libc only, well under a
# second. Linked statically when the C library allows it (one exec less of
# ld.so on every job's path), dynamically otherwise. Called by setup.sh and
# `npm run build`; without it the native provider reports itself not ready
# rather than run jobs without closing inherited descriptors (#10 item 1).
set -euo pipefail
cd "$(dirname "$0")/.."

[ "$(uname -s)" = "Linux" ] || { echo "build-native-helper: not Linux, nothing to build" >&2; exit 0; }
src=src/providers/native/helper/headspace-exec.c
out=dist/native/headspace-exec
cc=${CC:-$(command -v cc || command -v gcc || true)}
if [ -z "$cc" ]; then
  echo "build-native-helper: no C compiler; as root: apt-get install -y gcc libc6-dev" >&2
  exit 1
fi
mkdir -p dist/native
flags=(-std=c11 -O2 -s -Wall -Wextra -Werror -D_FORTIFY_SOURCE=2)
if ! "$cc" "${flags[@]}" -static -o "$out.tmp" "$src" 2>/dev/null; then
  "$cc" "${flags[@]}" -o "$out.tmp" "$src"
fi
chmod 0755 "$out.tmp"
mv -f "$out.tmp" "$out"
echo "build-native-helper: built $out (Landlock ABI here: $("$out" --abi))" >&2
