#!/usr/bin/env bash
# A Docker Engine for the docker provider's tests, on a fresh machine:
#  1. an engine that already answers (DOCKER_HOST, else /var/run/docker.sock)
#     is used as it is;
#  2. otherwise, as root: docker.io through apt when dockerd is missing, then
#     our own dockerd started in the background with a scratch data root,
#     exec root and socket under STATE_DIR, no bridge and no iptables (the
#     workspaces use NetworkMode none), its own cgroup parent, and a pid file
#     that scripts/stop-docker.sh stops it by (never by name);
#  3. the profile images, built locally with `docker import` (no registry is
#     reachable here): headspace/minimal:local (busybox-static) and
#     headspace/python:local (busybox + the host's /usr/bin/python3 with its
#     libraries and standard library), which the `host` profile maps to.
#
# Usage: eval "$(bash scripts/setup-docker.sh [STATE_DIR])"
# stdout carries only `export NAME=value` lines: DOCKER_HOST, and
# HEADSPACE_DOCKER_STATE when this script started the daemon (pass it to
# scripts/stop-docker.sh). When no engine can be had it prints
# HEADSPACE_DOCKER_SKIP=<reason> and exits 0, so the docker suites skip with
# that reason; under CI=true it exits 1 instead (CI must run them for real).
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "setup-docker: $*" >&2; }
unavailable() {
  if [ "${CI:-}" = "true" ]; then
    say "no Docker Engine: $1 (CI=true: the docker suites must run)"
    exit 1
  fi
  say "no Docker Engine, the docker suites will be skipped: $1"
  printf "export HEADSPACE_DOCKER_SKIP=%q\n" "$1"
  exit 0
}

client=""
for candidate in /usr/bin/docker /usr/local/bin/docker "$(command -v docker 2>/dev/null || true)"; do
  if [ -n "$candidate" ] && [ -x "$candidate" ]; then client="$candidate"; break; fi
done
answers() { [ -n "$client" ] && timeout 10 "$client" -H "$1" version --format '{{.Server.Version}}' >/dev/null 2>&1; }

host=""
for existing in "${DOCKER_HOST:-}" unix:///var/run/docker.sock; do
  if [ -n "$existing" ] && answers "$existing"; then host="$existing"; break; fi
done

state=""
if [ -z "$host" ]; then
  [ "$(uname -s)" = "Linux" ] || unavailable "no engine answers and starting one is only done on Linux (start Docker Desktop, or set DOCKER_HOST)"
  [ "$(id -u)" -eq 0 ] || unavailable "no engine answers at ${DOCKER_HOST:-/var/run/docker.sock}, and starting one needs root (or set DOCKER_HOST)"
  dockerd="$(command -v dockerd 2>/dev/null || true)"
  if [ -z "$dockerd" ] || [ -z "$client" ]; then
    command -v apt-get >/dev/null 2>&1 || unavailable "docker.io is not installed and apt-get is not available"
    say "installing docker.io through apt (about 8 s)"
    export DEBIAN_FRONTEND=noninteractive
    { apt-get update -qq && apt-get install -y -qq --no-install-recommends docker.io busybox-static >/dev/null; } >&2 || unavailable "apt-get install docker.io failed"
    dockerd="$(command -v dockerd 2>/dev/null || true)"
    for candidate in /usr/bin/docker /usr/local/bin/docker; do [ -x "$candidate" ] && client="$candidate" && break; done
    [ -n "$dockerd" ] && [ -n "$client" ] || unavailable "docker.io was installed but dockerd or docker is still missing"
  fi
  state="${1:-${HEADSPACE_DOCKER_STATE:-}}"
  [ -n "$state" ] || state="$(mktemp -d /tmp/headspace-dockerd-XXXXXX)"
  mkdir -p "$state"
  # Short paths: a unix socket path is limited to 108 bytes.
  host="unix://$state/docker.sock"
  # Its own cgroup parent, so the cgroups it leaves are ours to remove (stop-docker.sh), never another daemon's.
  echo "/headspace-dockerd-$(basename "$state")" >"$state/cgroup-parent"
  say "starting dockerd (data root $state/data)"
  # Its own TMPDIR: dockerd inherits the caller's, and runc writes each exec's process spec there; a caller's
  # TMPDIR that goes away (the bench points it at a peer's scratch dir for a while) failed every later
  # `docker exec` with "OCI runtime exec failed: open …/runc-process…: no such file".
  mkdir -p "$state/tmp"
  TMPDIR="$state/tmp" setsid "$dockerd" \
    --data-root "$state/data" --exec-root "$state/exec" --pidfile "$state/dockerd.pid" \
    -H "$host" --bridge none --iptables=false --ip6tables=false --ip-masq=false \
    --cgroup-parent "$(cat "$state/cgroup-parent")" \
    </dev/null >"$state/dockerd.log" 2>&1 &
  echo "$!" >"$state/dockerd.started-pid"
  for _ in $(seq 1 150); do
    answers "$host" && break
    kill -0 "$(cat "$state/dockerd.started-pid")" 2>/dev/null || break
    sleep 0.2
  done
  if ! answers "$host"; then
    reason="dockerd did not answer: $(tail -n 3 "$state/dockerd.log" | tr '\n' ' ' | cut -c1-300)"
    bash scripts/stop-docker.sh "$state" >&2 || true
    unavailable "$reason"
  fi
fi
say "engine $(timeout 10 "$client" -H "$host" version --format '{{.Server.Version}}') at $host"

docker_() { "$client" -H "$host" "$@"; }

# The images: rebuilt only when missing. Their content is the host's own
# busybox and python3, so they are reproducible on this machine and pinned by
# the image id (a content digest) the provider records at create.
busybox=""
for candidate in /bin/busybox /usr/bin/busybox; do [ -x "$candidate" ] && busybox="$candidate" && break; done
build_image() {
  local name="$1" with_python="$2"
  if docker_ image inspect "$name" >/dev/null 2>&1; then return 0; fi
  [ -n "$busybox" ] || unavailable "busybox-static is needed to build $name (apt: busybox-static)"
  local root
  root="$(mktemp -d /tmp/headspace-rootfs-XXXXXX)"
  mkdir -p "$root"/{bin,usr/bin,tmp,etc,proc,sys,dev,workspace,home}
  chmod 1777 "$root/tmp"
  cp "$busybox" "$root/bin/busybox"
  chmod 755 "$root/bin/busybox"
  for applet in $("$busybox" --list); do
    [ "$applet" = busybox ] || ln -sf busybox "$root/bin/$applet"
  done
  printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/sh\n' >"$root/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
  if [ "$with_python" = yes ] && [ -x /usr/bin/python3 ]; then
    local real version
    real="$(readlink -f /usr/bin/python3)"
    cp "$real" "$root/usr/bin/python3"
    chmod 755 "$root/usr/bin/python3"
    ln -sf python3 "$root/usr/bin/python"
    for lib in $(ldd "$real" | grep -o '/[^ ]*\.so[.0-9]*'); do
      mkdir -p "$root$(dirname "$lib")"
      cp -L "$lib" "$root$lib"
    done
    version="$(/usr/bin/python3 -c 'import sys; print("python%d.%d" % sys.version_info[:2])')"
    mkdir -p "$root/usr/lib"
    tar -C /usr/lib --exclude="$version/test" --exclude="$version/idlelib" --exclude="$version/tkinter" \
      --exclude="$version/ensurepip" --exclude="$version/lib2to3" --exclude='__pycache__' -cf - "$version" | tar -C "$root/usr/lib" -xf -
    # Extension modules link against libs ldd of the interpreter does not list (libffi, libssl, ...).
    for so in "$root/usr/lib/$version"/lib-dynload/*.so; do
      for lib in $(ldd "$so" 2>/dev/null | grep -o '/[^ ]*\.so[.0-9]*'); do
        [ -e "$root$lib" ] && continue
        mkdir -p "$root$(dirname "$lib")"
        cp -L "$lib" "$root$lib"
      done
    done
  fi
  say "building $name"
  tar -C "$root" -cf - . | docker_ import \
    --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin' --change 'WORKDIR /workspace' \
    --change 'LABEL dev.headspace.image=1' - "$name" >/dev/null
  rm -rf "$root"
}
build_image headspace/minimal:local no
build_image headspace/python:local yes

printf "export DOCKER_HOST=%q\n" "$host"
[ -z "$state" ] || printf "export HEADSPACE_DOCKER_STATE=%q\n" "$state"
