import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSwarmProvider } from '../../src/providers/swarm/swarm-provider.js';
import { swarmReadiness } from '../helpers/swarm-readiness.js';
import { NOT_DISPOSABLE } from '../helpers/swarm-nodes.js';
import { CONFORMANCE_TESTS, runProviderConformance } from './provider-suite.js';
import { POSIX_COMMANDS } from './posix-commands.js';

const readiness = await swarmReadiness();

runProviderConformance({
  name: 'swarm',
  async make() {
    const dir = mkdtempSync(join(tmpdir(), 'hs-swarm-conf-'));
    return {
      provider: createSwarmProvider({ root: dir, managerHost: readiness.host, constraints: [NOT_DISPOSABLE] }),
      peer: async () => createSwarmProvider({ root: dir, managerHost: readiness.host, constraints: [NOT_DISPOSABLE] }),
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  },
  // A create here waits for a container (swarm: a task on a node) to start: two are made ahead while tests run (#20).
  madeAhead: 2,
  commands: {
    ...POSIX_COMMANDS,
    // busybox-static has no printenv applet.
    printEnv: (name) => ['python3', '-c', 'import os, sys; print(os.environ.get(sys.argv[1], ""))', name],
  },
  // Without a swarm only the capability declaration can be checked: even "unknown workspace" is the manager's answer.
  skip: readiness.ready
    ? []
    : [{ reason: readiness.reason, tests: CONFORMANCE_TESTS.filter((t) => t !== 'declares a capability for every limit, the same on every call') }],
});
