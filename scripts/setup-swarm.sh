#!/usr/bin/env bash
# A three-node Docker Swarm on one machine, for the swarm provider's tests:
#  1. a hub network namespace holding a bridge, and one network namespace per
#     node joined to it by a veth pair; the nodes' addresses (198.18.0.11-13,
#     inside 198.18.0.0/15) exist only inside these namespaces: nothing is
#     added to the host's own namespace and no node has a route anywhere else;
#  2. one dockerd per node, started the way scripts/setup-docker.sh starts
#     one (own data root, exec root, pid file, socket and cgroup parent under
#     STATE_DIR/nN, `--bridge none`, no iptables), inside its namespace and a
#     UTS namespace of its own (hostname hs-nN, so `docker node ls` tells
#     them apart);
#  3. `swarm init` on n1 (the manager), `swarm join` of n2 and n3 (workers);
#     each node carries the label dev.headspace.engine=<its Engine API
#     address>, which is how the swarm provider finds the daemon that runs a
#     task (there is no other way from the manager's API);
#  4. the profile images, built on n1 by scripts/setup-docker.sh and copied
#     to n2 and n3 with `docker save | docker load` (no registry is reachable;
#     the image id is kept, so services reference images by id and no node
#     ever tries to pull).
# scripts/stop-swarm.sh tears it all down by pid.
#
# `--bridge none` matters: a swarm service cannot use the `none` network
# (it is not one of Swarm's predefined networks), so a task with no network
# gets the engine's default bridge — which a node started this way does not
# have, leaving the container with loopback only. The provider checks this on
# every node before it places anything (fail closed).
#
# Usage: eval "$(bash scripts/setup-swarm.sh [STATE_DIR])"
# stdout carries only `export NAME=value` lines: HEADSPACE_SWARM_HOST (the
# manager's socket), HEADSPACE_SWARM_STATE (for stop-swarm.sh). When no swarm
# can be had it prints HEADSPACE_SWARM_SKIP=<reason> and exits 0, so the swarm
# suites skip with that reason; under CI=true it exits 1 instead.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "setup-swarm: $*" >&2; }
started_at="$(date +%s.%N)"
unavailable() {
  [ -z "${state:-}" ] || bash scripts/stop-swarm.sh "$state" >&2 || true
  if [ "${CI:-}" = "true" ]; then
    say "no test swarm: $1 (CI=true: the swarm suites must run)"
    exit 1
  fi
  say "no test swarm, the swarm suites will be skipped: $1"
  printf "export HEADSPACE_SWARM_SKIP=%q\n" "$1"
  exit 0
}

state=""
[ "$(uname -s)" = "Linux" ] || unavailable "the test swarm needs Linux network namespaces"
[ "$(id -u)" -eq 0 ] || unavailable "the test swarm needs root (network namespaces and three dockerd)"
for tool in ip nsenter unshare; do
  command -v "$tool" >/dev/null 2>&1 || unavailable "$tool is missing (apt: iproute2, util-linux)"
done
if ! command -v dockerd >/dev/null 2>&1; then
  # setup-docker.sh installs docker.io when it may; with a running engine it
  # would not, so ask for it explicitly.
  command -v apt-get >/dev/null 2>&1 || unavailable "docker.io is not installed and apt-get is not available"
  say "installing docker.io through apt (about 8 s)"
  { DEBIAN_FRONTEND=noninteractive apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends docker.io busybox-static >/dev/null; } >&2 || unavailable "apt-get install docker.io failed"
fi
dockerd="$(command -v dockerd)"
client=""
for candidate in /usr/bin/docker /usr/local/bin/docker "$(command -v docker 2>/dev/null || true)"; do
  if [ -n "$candidate" ] && [ -x "$candidate" ]; then client="$candidate"; break; fi
done
[ -n "$client" ] || unavailable "the docker client is missing (apt: docker.io)"

state="${1:-${HEADSPACE_SWARM_STATE:-}}"
[ -n "$state" ] || state="$(mktemp -d /tmp/hs-swarm-XXXXXX)"
mkdir -p "$state"
state="$(cd "$state" && pwd)"
# Namespace and interface names carry a tag from the state dir, so two test
# swarms on one machine never collide (interface names are limited to 15 bytes).
tag="$(basename "$state" | tr -cd 'a-zA-Z0-9' | tail -c 6)"
echo "$tag" >"$state/tag"
hub="hs${tag}-hub"
nodes=(n1 n2 n3)
addr() { echo "198.18.0.1${1#n}"; }

say "network: hub $hub, nodes $(for n in "${nodes[@]}"; do printf '%s=%s ' "$n" "$(addr "$n")"; done)"
ip netns add "$hub" || unavailable "ip netns add failed"
echo "$hub" >>"$state/netns"
ip -n "$hub" link set lo up
ip -n "$hub" link add br0 type bridge || unavailable "no bridge support in this kernel"
ip -n "$hub" link set br0 up
for n in "${nodes[@]}"; do
  if [ "$n" = n1 ]; then
    err="$(bash scripts/add-swarm-node.sh "$state" n1 --init dev.headspace.pool=fixed 2>&1 >/dev/null)" || unavailable "n1: $err"
    say "swarm initialised on n1; images built there, then n2 n3 join"
    DOCKER_HOST="unix://$state/n1/docker.sock" CI=false bash scripts/setup-docker.sh >/dev/null || unavailable "building the images on n1 failed"
  else
    err="$(bash scripts/add-swarm-node.sh "$state" "$n" dev.headspace.pool=fixed 2>&1 >/dev/null)" || unavailable "$n: $err"
  fi
done
node() { local n="$1"; shift; "$client" -H "unix://$state/$n/docker.sock" "$@"; }
for _ in $(seq 1 100); do
  ready="$(node n1 node ls --format '{{.Status}}' | grep -c '^Ready$' || true)"
  [ "$ready" = 3 ] && break
  sleep 0.2
done
[ "$ready" = 3 ] || unavailable "only $ready of 3 nodes are Ready: $(node n1 node ls 2>&1 | tr '\n' ' ')"

rss=0
for n in "${nodes[@]}"; do
  for pidfile in "$state/$n/dockerd.started-pid" "$state/$n/exec/containerd/containerd.pid"; do
    [ -f "$pidfile" ] || continue
    kb="$(awk '/VmRSS/ {print $2}' "/proc/$(cat "$pidfile")/status" 2>/dev/null || echo 0)"
    rss=$((rss + ${kb:-0}))
  done
done
say "ready in $(echo "$(date +%s.%N) - $started_at" | bc 2>/dev/null || echo '?') s; dockerd+containerd RSS $((rss / 1024)) MiB for 3 nodes"

printf "export HEADSPACE_SWARM_HOST=%q\n" "unix://$state/n1/docker.sock"
printf "export HEADSPACE_SWARM_STATE=%q\n" "$state"
