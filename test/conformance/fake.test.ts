import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeProvider } from '../../src/providers/fake/fake-provider.js';
import { runProviderConformance } from './provider-suite.js';

runProviderConformance({
  name: 'fake',
  async make() {
    const dir = mkdtempSync(join(tmpdir(), 'hs-fake-conf-'));
    const persistPath = join(dir, 'state.json');
    return {
      provider: createFakeProvider({ persistPath }),
      peer: async () => createFakeProvider({ persistPath }),
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  },
  commands: {
    print: (text) => ['echo', text],
    exitSeven: ['exit', '7'],
    absent: ['no-such-command-here'],
    unrunnable: {
      argv: ['tool.sh'],
      async setup(provider, workspaceId) {
        const data = Buffer.from('#!/bin/sh\n');
        const { createHash } = await import('node:crypto');
        await provider.write(workspaceId, 'tool.sh', data, { expectedSha256: createHash('sha256').update(data).digest('hex'), overwrite: true });
      },
    },
    memoryHog: ['alloc', String(1024 * 1024 * 1024)],
    slow: ['block'],
    writeFile: (path, text) => ['write', path, text],
    printEnv: (name) => ['env', name],
    fetch: (url) => ['fetch', url],
  },
  skip: [
    {
      reason: 'a scripted fake job names files with text (its argv), so it can never make a name that is not UTF-8',
      tests: ['keeps a name that is not UTF-8 apart from its U+FFFD look-alike'],
    },
  ],
});
