#!/usr/bin/env bash
# Removes one node from the test swarm in STATE_DIR (the node-loss test's
# disposable node, after it was power-cut): `docker node rm --force` on the
# manager, its dockerd stopped by pid (scripts/stop-docker.sh, which also
# removes its directory), its network namespace deleted.
set -uo pipefail
cd "$(dirname "$0")/.."
state="${1:?usage: remove-swarm-node.sh STATE_DIR nN}"
n="${2:?usage: remove-swarm-node.sh STATE_DIR nN}"
[ -f "$state/tag" ] && [ "$n" != n1 ] || { echo "remove-swarm-node: not a removable node of a test swarm: $state $n" >&2; exit 1; }
tag="$(cat "$state/tag")"
client="$(command -v docker)"
id="$("$client" -H "unix://$state/n1/docker.sock" node ls --filter "node.label=dev.headspace.test-node=$n" --format '{{.ID}}' 2>/dev/null)"
[ -z "$id" ] || "$client" -H "unix://$state/n1/docker.sock" node rm --force "$id" >/dev/null 2>&1
[ -d "$state/$n" ] && bash scripts/stop-docker.sh "$state/$n"
ip netns del "hs${tag}-$n" 2>/dev/null
[ -f "$state/netns" ] && grep -vx "hs${tag}-$n" "$state/netns" >"$state/netns.new" && mv "$state/netns.new" "$state/netns"
echo "remove-swarm-node: removed $n" >&2
