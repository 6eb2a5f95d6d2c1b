import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDockerProvider } from '../../src/providers/docker/docker-provider.js';
import { dockerReadiness } from '../helpers/docker-readiness.js';
import { CONFORMANCE_TESTS, runProviderConformance } from './provider-suite.js';

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
  commands: {
    print: (text) => ['echo', text],
    exitSeven: ['sh', '-c', 'exit 7'],
    absent: ['no-such-command-here'],
    unrunnable: {
      argv: ['./tool.sh'],
      async setup(provider, workspaceId) {
        // Written without an execute bit: exec fails with EACCES → 126.
        const data = Buffer.from('#!/bin/sh\necho never\n');
        await provider.write(workspaceId, 'tool.sh', data, { expectedSha256: createHash('sha256').update(data).digest('hex'), overwrite: true });
      },
    },
    // Writes every byte (bytes(n) would map lazily-zeroed pages the kernel never charges).
    memoryHog: ['python3', '-c', 'x = b"\\x01" * (1 << 30)'],
    slow: ['sleep', '30'],
    writeFile: (path, text) => ['sh', '-c', 'printf "%s" "$2" > "$1"', 'sh', path, text],
    // busybox-static has no printenv applet.
    printEnv: (name) => ['python3', '-c', 'import os, sys; print(os.environ.get(sys.argv[1], ""))', name],
    writeRawName: (name, text) => ['python3', '-c', 'import sys; open(bytes.fromhex(sys.argv[1]), "w").write(sys.argv[2])', name.toString('hex'), text],
  },
  // Without an engine only the capability declaration can be checked: even "unknown workspace" is the engine's answer.
  skip: readiness.ready
    ? []
    : [{ reason: readiness.reason, tests: CONFORMANCE_TESTS.filter((t) => t !== 'declares a capability for every limit, the same on every call') }],
});
