#!/usr/bin/env bash
# Power-cuts one node of the test swarm scripts/setup-swarm.sh made (for the
# node-loss tests): SIGKILL, with no chance to clean up, to that node's
# dockerd, its containerd, its containerd shims and every process in its
# containers. Processes are found by the node's own state path in their
# command line or by its own cgroup parent, never by a program name.
# The node's directory stays, so scripts/stop-swarm.sh still removes it.
set -uo pipefail
state="${1:?usage: kill-swarm-node.sh STATE_DIR nN}"
n="${2:?usage: kill-swarm-node.sh STATE_DIR nN}"
dir="$state/$n"
[ -f "$state/tag" ] && [ -d "$dir" ] || { echo "kill-swarm-node: no node $n in $state" >&2; exit 1; }

pids=()
for p in /proc/[0-9]*; do
  p="${p#/proc/}"
  { tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null | grep -q -- "$dir/" && pids+=("$p")
done
parent="$(cat "$dir/cgroup-parent")"
for procs in /sys/fs/cgroup/pids"$parent"/*/cgroup.procs /sys/fs/cgroup/memory"$parent"/*/cgroup.procs; do
  [ -f "$procs" ] && while read -r p; do pids+=("$p"); done <"$procs"
done
[ "${#pids[@]}" -gt 0 ] && kill -KILL "${pids[@]}" 2>/dev/null
echo "kill-swarm-node: killed ${#pids[@]} processes of $n" >&2
