import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { layoutOf } from '../../src/providers/native/layout.js';
import { createNativeProvider } from '../../src/providers/native/native-provider.js';
import { nativeReadiness } from '../unit/providers/native/native-readiness.js';
import { runProviderConformance } from './provider-suite.js';
import { POSIX_COMMANDS } from './posix-commands.js';

const readiness = await nativeReadiness();

runProviderConformance({
  name: 'native',
  async make() {
    const dir = mkdtempSync(join(tmpdir(), 'hs-native-conf-'));
    return {
      provider: createNativeProvider({ root: dir }),
      peer: async () => createNativeProvider({ root: dir }),
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
      // The checkpoint's top layer is deleted from its image, as a disk fault or an operator could.
      async damageCheckpoint(workspaceId, checkpointId) {
        const manifest = JSON.parse(readFileSync(join(dir, 'workspaces', workspaceId, 'checkpoints', `${checkpointId}.json`), 'utf8')) as {
          chain: Array<{ store: string; layer: string }>;
        };
        const top = manifest.chain[0]!;
        const mountBase = join('/run/headspace-native', layoutOf(dir).cgroupName('').replace(/-$/, ''));
        rmSync(join(mountBase, 'img', top.store, 'layers', top.layer), { recursive: true, force: true });
      },
    };
  },
  commands: POSIX_COMMANDS,

  skip: readiness.ready
    ? []
    : [
        {
          reason: readiness.reason,
          tests: [
            'probes the host and says whether it is ready',
            'creates a ready workspace with an algorithm-prefixed environment digest',
            'refuses a duplicate workspace id',
            'runs a command and streams its output',
            'reports a failing command as an exit status, not an error',
            'tells a missing command (127) from an unrunnable one (126)',
            'reports a job killed for memory from the kernel counter',
            'ends a job promptly when the engine aborts it',
            'leaves the workspace ready after three jobs',
            'gives a job its environment and does not carry it into the next job',
            'returns written bytes exactly, in bounded chunks, and closes twice safely',
            'with network-allowlist, reaches an allowed host, is denied another, and each decision is recorded',
            'with network-allowlist, refuses an allow-list job given no egress path',
            'refuses missing paths and escapes as user errors',
            'checks the digest on write and lands nothing on a mismatch',
            'refuses to overwrite unless asked',
            'reads a file a job wrote',
            'lists workspace entries without following links',
            'lists and reads a name with a backslash or a control character by its text form',
            'keeps a name that is not UTF-8 apart from its U+FFFD look-alike',
            'reports an idle stop as nothing stopped',
            'stops a running job from another provider instance',
            'partitions removal into removed, retained and unverified and forgets the workspace',
            'snapshots: changes since a checkpoint are exactly the created, modified and deleted files, links and modes',
            'snapshots: restore reverts modified, created and deleted files, links and modes',
            'snapshots: a fork has identical files, writes apart from its parent, and changes only its own',
            'snapshots: verify holds for a checkpoint and fails once it is damaged or dropped',
            'snapshots: a fork keeps working after its checkpoint is dropped and its parent removed',
          ],
        },
      ],
});
