#!/usr/bin/env bash
# Tears down the test swarm scripts/setup-swarm.sh made in STATE_DIR: each
# node's dockerd by its recorded pid (scripts/stop-docker.sh, never by name),
# then the network namespaces it recorded (which removes the veth pairs and
# the bridge with them), then the directory. Does nothing for a directory it
# did not make.
set -uo pipefail
cd "$(dirname "$0")/.."
state="${1:-${HEADSPACE_SWARM_STATE:-}}"
[ -n "$state" ] && [ -d "$state" ] || exit 0
[ -f "$state/tag" ] || { echo "stop-swarm: $state was not made by setup-swarm.sh; left alone" >&2; exit 0; }

for dir in "$state"/n*; do
  [ -d "$dir" ] && bash scripts/stop-docker.sh "$dir"
done
if [ -f "$state/netns" ]; then
  while read -r ns; do ip netns del "$ns" 2>/dev/null || true; done <"$state/netns"
fi
rm -rf "$state"
echo "stop-swarm: removed $state" >&2
