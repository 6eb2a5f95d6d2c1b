import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
      // The snapshot cases (#14): a checkpoint's copy changed behind the provider's back, as a damaged disk would.
      async damageCheckpoint(workspaceId: string, checkpointId: string) {
        const state = JSON.parse(readFileSync(persistPath, 'utf8')) as {
          workspaces: Record<string, { checkpoints: Record<string, { files: Record<string, string> }> }>;
        };
        const files = state.workspaces[workspaceId]!.checkpoints[checkpointId]!.files;
        files[Object.keys(files)[0]!] = Buffer.from('damaged').toString('base64');
        writeFileSync(persistPath, JSON.stringify(state));
      },
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
    // For the snapshot cases (#14) once the suite has them.
    symlink: (target: string, path: string) => ['ln', '-s', target, path],
    chmod: (mode: string, path: string) => ['chmod', mode, path],
    fetch: (url) => ['fetch', url],
    fetchWithHeaderFrom: (url, name) => ['fetch', url, name],
  },
  skip: [
    {
      reason: 'a scripted fake job names files with text (its argv), so it can never make a name that is not UTF-8',
      tests: ['keeps a name that is not UTF-8 apart from its U+FFFD look-alike'],
    },
  ],
});
