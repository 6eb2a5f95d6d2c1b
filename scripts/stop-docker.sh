#!/usr/bin/env bash
# Stops the dockerd that scripts/setup-docker.sh started in STATE_DIR: by the
# pid it recorded (never by name: other daemons on the machine are not ours),
# TERM then KILL after 20 s; then its managed containerd, what it left
# mounted under STATE_DIR, the cgroups under its own cgroup parent, and the
# directory. Does nothing for an engine it did not start (no STATE_DIR).
set -uo pipefail
state="${1:-${HEADSPACE_DOCKER_STATE:-}}"
[ -n "$state" ] && [ -d "$state" ] || exit 0
[ -f "$state/dockerd.started-pid" ] || { echo "stop-docker: $state was not made by setup-docker.sh; left alone" >&2; exit 0; }

pid="$(cat "$state/dockerd.started-pid")"
ours() { [ -r "/proc/$1/cmdline" ] && tr '\0' ' ' <"/proc/$1/cmdline" | grep -q -- "$state"; }
containerd=""
[ -f "$state/exec/containerd/containerd.pid" ] && containerd="$(cat "$state/exec/containerd/containerd.pid")"

if ours "$pid"; then
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 200); do ours "$pid" || break; sleep 0.1; done
  ours "$pid" && kill -KILL "$pid" 2>/dev/null
fi
if [ -n "$containerd" ]; then
  for _ in $(seq 1 100); do ours "$containerd" || break; sleep 0.1; done
  ours "$containerd" && kill -KILL "$containerd" 2>/dev/null
fi
# Overlay layers, shm and netns files it may leave mounted, deepest first.
awk -v s="$state" '$2 ~ "^"s {print $2}' /proc/self/mounts | sort -r | while read -r m; do umount -l "$m" 2>/dev/null || true; done
if [ -f "$state/cgroup-parent" ]; then
  parent="$(cat "$state/cgroup-parent")"
  for root in /sys/fs/cgroup /sys/fs/cgroup/*; do
    [ -d "$root$parent" ] && find "$root$parent" -depth -type d -exec rmdir {} + 2>/dev/null
  done
fi
rm -rf "$state"
echo "stop-docker: stopped dockerd $pid and removed $state" >&2
