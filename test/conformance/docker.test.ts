import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDockerProvider } from '../../src/providers/docker/docker-provider.js';
import { dockerReadiness } from '../helpers/docker-readiness.js';
import { CONFORMANCE_TESTS, runProviderConformance } from './provider-suite.js';
import { POSIX_COMMANDS } from './posix-commands.js';

const readiness = await dockerReadiness();

runProviderConformance({
  name: 'docker',
  async make() {
    const dir = mkdtempSync(join(tmpdir(), 'hs-docker-conf-'));
    return {
      provider: createDockerProvider({ root: dir }),
      peer: async () => createDockerProvider({ root: dir }),
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
  // Without an engine only the capability declaration can be checked: even "unknown workspace" is the engine's answer.
  skip: readiness.ready
    ? []
    : [{ reason: readiness.reason, tests: CONFORMANCE_TESTS.filter((t) => t !== 'declares a capability for every limit, the same on every call') }],
});
