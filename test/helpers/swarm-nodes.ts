/**
 * The node-loss tests each add a disposable node of their own to the shared
 * test swarm and power-cut it (scripts/add-swarm-node.sh, kill-swarm-node.sh):
 * a-lost-worker… takes n4 and a-worker-lost-outside… takes n5, so the two
 * files may run at once (vitest runs two) without adding, killing or
 * removing each other's node. Every other swarm test keeps its workspaces off
 * both with NOT_DISPOSABLE (a node without the label matches), so a kill
 * never hits another test's workspace.
 */
import { spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { join } from 'node:path';
import { REPO } from './cli.js';

export const DISPOSABLE_LABEL = 'dev.headspace.pool=disposable';
/**
 * Only the three fixed nodes (setup-swarm.sh labels them pool=fixed when they join). Not `pool!=disposable`: a
 * disposable node has no label for a moment after it joins, and a task placed on it then was rejected when the
 * label came (CI: 21 conformance cases on hs-n5, "assigned node no longer meets constraints").
 */
export const NOT_DISPOSABLE = 'node.labels.dev.headspace.pool==fixed';

/** One disposable node, `n` (n4..n9): its placement constraints (only that node), and its add, power-cut and removal. */
export function disposableNode(state: string, n: `n${4 | 5 | 6 | 7 | 8 | 9}`) {
  const script = (name: string, ...args: string[]) => {
    const result = spawnSync('bash', [join(REPO, 'scripts', name), state, n, ...args], { encoding: 'utf8', timeout: 120_000 });
    if (result.status !== 0) throw new Error(`${name} ${n} failed: ${result.stderr}`);
  };
  return {
    /** HEADSPACE_SWARM_CONSTRAINTS (comma-separated): a disposable node, and this one (add-swarm-node.sh labels each node dev.headspace.test-node=nN). */
    constraints: `node.labels.dev.headspace.pool==disposable,node.labels.dev.headspace.test-node==${n}`,
    add: () => script('add-swarm-node.sh', DISPOSABLE_LABEL),
    kill: () => script('kill-swarm-node.sh'),
    remove: () => script('remove-swarm-node.sh'),
  };
}

/**
 * The manager's view of node hs-`n` (its Status.State: ready, down, …), asked over the Engine API at `managerHost`
 * (unix://PATH) from this process: a wait for a node to go down polls this, which costs nothing, instead of a CLI
 * call a second (a doctor of the swarm provider is ~0.6 s of CPU here).
 */
export function nodeState(managerHost: string, n: string): Promise<string | undefined> {
  const filters = encodeURIComponent(JSON.stringify({ name: [`hs-${n}`] }));
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: managerHost.replace(/^unix:\/\//, ''), path: `/nodes?filters=${filters}`, timeout: 10_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        try {
          const nodes = JSON.parse(body) as Array<{ Description?: { Hostname?: string }; Status?: { State?: string } }>;
          resolve(nodes.find((node) => node.Description?.Hostname === `hs-${n}`)?.Status?.State ?? nodes[0]?.Status?.State);
        } catch (error) {
          reject(error as Error);
        }
      });
    });
    req.on('timeout', () => req.destroy(new Error('the manager did not answer within 10 s')));
    req.on('error', reject);
    req.end();
  });
}
