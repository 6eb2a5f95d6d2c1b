#!/usr/bin/env bash
# Adds one node to the test swarm in STATE_DIR (scripts/setup-swarm.sh uses
# it for n1..n3; the node-loss test adds a disposable n4 and power-cuts it):
# a network namespace nN with a veth pair to the hub's bridge, address
# 198.18.0.(10+N) — only inside these namespaces —, a dockerd in it laid out
# as scripts/setup-docker.sh lays one out (so scripts/stop-docker.sh stops it
# by pid), with its own UTS namespace (hostname hs-nN); unless it is n1, the
# images copied from n1 (`docker save | docker load`, ids kept); then `swarm
# init` (--init, for n1) or `swarm join` to n1; and the node labels
# dev.headspace.engine=<its socket>, dev.headspace.test-node=nN and any
# extra KEY=VALUE given.
# Usage: add-swarm-node.sh STATE_DIR nN [--init] [KEY=VALUE ...]
# Prints the node's swarm id on stdout; exits non-zero with the reason on stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
state="${1:?usage: add-swarm-node.sh STATE_DIR nN [--init] [KEY=VALUE ...]}"
n="${2:?usage: add-swarm-node.sh STATE_DIR nN [--init] [KEY=VALUE ...]}"
shift 2
init=no
[ "${1:-}" = "--init" ] && init=yes && shift
[[ "$n" =~ ^n[1-9]$ ]] || { echo "add-swarm-node: node names are n1..n9" >&2; exit 1; }
tag="$(cat "$state/tag")"
hub="hs${tag}-hub"
ns="hs${tag}-$n"
addr() { echo "198.18.0.1${1#n}"; }
client="$(command -v docker)"
node() { local m="$1"; shift; "$client" -H "unix://$state/$m/docker.sock" "$@"; }
fail() { echo "add-swarm-node: $n: $*" >&2; exit 1; }

ip netns add "$ns" || fail "ip netns add failed"
echo "$ns" >>"$state/netns"
ip -n "$ns" link set lo up
ip link add "hs${tag}$n" netns "$ns" type veth peer name "$n" netns "$hub" || fail "no veth support in this kernel"
ip -n "$ns" link set "hs${tag}$n" name eth0
ip -n "$ns" addr add "$(addr "$n")/24" dev eth0
ip -n "$ns" link set eth0 up
ip -n "$hub" link set "$n" master br0 up

dir="$state/$n"
mkdir -p "$dir"
echo "/headspace-swarm-$tag-$n" >"$dir/cgroup-parent"
# --bridge none: a task with no network then has loopback only (a swarm service cannot use the `none` network).
# Its own TMPDIR, as setup-docker.sh gives its dockerd (runc writes each exec's process spec there).
mkdir -p "$dir/tmp"
TMPDIR="$dir/tmp" setsid nsenter --net="/run/netns/$ns" unshare --uts sh -c 'hostname "$0" && exec "$@"' "hs-$n" \
  "$(command -v dockerd)" --data-root "$dir/data" --exec-root "$dir/exec" --pidfile "$dir/dockerd.pid" \
  -H "unix://$dir/docker.sock" --bridge none --iptables=false --ip6tables=false --ip-masq=false \
  --cgroup-parent "$(cat "$dir/cgroup-parent")" --log-level warn \
  </dev/null >"$dir/dockerd.log" 2>&1 &
echo "$!" >"$dir/dockerd.started-pid"
answers() { timeout 10 "$client" -H "unix://$dir/docker.sock" version --format '{{.Server.Version}}' >/dev/null 2>&1; }
for _ in $(seq 1 150); do
  answers && break
  kill -0 "$(cat "$dir/dockerd.started-pid")" 2>/dev/null || break
  sleep 0.2
done
answers || fail "dockerd did not answer: $(tail -n 3 "$dir/dockerd.log" | tr '\n' ' ' | cut -c1-300)"
# The images before the join, and the node joins drained, made active only with its labels: the swarm
# provider's probe counts every active node, and one lacking the image or the engine label makes every create
# of every swarm test refuse (the full suite on 2 cores: swarm conformance ran beside the node-loss test, and two
# of its creates failed with "hs-n5 lacks the image" and "hs-n5 has no dev.headspace.engine label", #20). A
# drained node takes no task, so the probe leaves it out.
if [ "$n" != n1 ]; then
  node n1 save headspace/minimal:local headspace/python:local | node "$n" load -q >/dev/null || fail "docker load failed"
fi

if [ "$init" = yes ]; then
  out="$(node "$n" swarm init --advertise-addr "$(addr "$n")" --listen-addr "$(addr "$n"):2377" 2>&1)" || fail "swarm init failed: $out"
else
  token="$(node n1 swarm join-token -q worker)"
  out="$(node "$n" swarm join --availability drain --token "$token" --advertise-addr "$(addr "$n")" --listen-addr "$(addr "$n"):2377" "$(addr n1):2377" 2>&1)" || fail "swarm join failed: $out"
fi
id="$(node "$n" info --format '{{.Swarm.NodeID}}')"
labels=(--label-add "dev.headspace.engine=unix://$dir/docker.sock" --label-add "dev.headspace.test-node=$n")
for kv in "$@"; do labels+=(--label-add "$kv"); done
node n1 node update "${labels[@]}" --availability active "$id" >/dev/null || fail "labelling the node failed"
echo "$id"
