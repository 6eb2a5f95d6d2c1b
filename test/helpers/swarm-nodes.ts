/**
 * The node-loss test adds a disposable fourth node to the shared test swarm
 * and power-cuts it (scripts/add-swarm-node.sh, kill-swarm-node.sh). Every
 * other swarm test keeps its workspaces off it with this placement
 * constraint (a node without the label matches), so the kill never hits
 * another test's workspace.
 */
export const DISPOSABLE_LABEL = 'dev.headspace.pool=disposable';
export const NOT_DISPOSABLE = 'node.labels.dev.headspace.pool!=disposable';
export const ONLY_DISPOSABLE = 'node.labels.dev.headspace.pool==disposable';
