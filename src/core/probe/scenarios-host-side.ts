/**
 * Host-side probes (#10 items 5, 8, 12): the job plants hostile content in
 * its own workspace, then the HOST side acts on it through the same provider
 * and core paths as the verbs (`export`, `ls-files`, a provider read). The
 * boundary here is the root runtime itself: it must neither fill the host's
 * disk, nor fail as an infrastructure fault on content, nor let a planted
 * link steer one of its opens outside the workspace.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { categoryOfCode, type EngineErrorCode } from '../errors.js';
import { formatBytes } from '../policy/effective-policy.js';
import { makeHostDir, plantCanaryFile, removePath } from './host-fixtures.js';
import { linesStartingWith, notAttempted, type HostActOutcome, type LandedBytes, type Scenario } from './probe-types.js';

const DONE = 'probe-done';

/** A refusal is the workspace's content only when its code is an engine code outside infrastructure_failure. */
function describeOutcome(outcome: HostActOutcome): { infrastructure: boolean; text: string } {
  if (outcome.ok) return { infrastructure: false, text: 'ok' };
  // A foreign error (not an engine code) keeps the category the host act gave it: infrastructure.
  const category = (categoryOfCode(outcome.refused as EngineErrorCode) as string | undefined) ?? outcome.category;
  const infrastructure = category === 'infrastructure_failure' || /ENAMETOOLONG/.test(outcome.refused);
  return { infrastructure, text: `${outcome.refused} (${category})` };
}

const SPARSE_BYTES = 3 * 1024 ** 3;
const SPARSE_SCRIPT = `import os
os.makedirs('hsprobe-sparse', exist_ok=True)
with open('hsprobe-sparse/big.bin', 'wb') as f:
    f.truncate(${SPARSE_BYTES})
    f.write(b'head')
    f.seek(${SPARSE_BYTES} - 4)
    f.write(b'tail')
print('sparse:', os.stat('hsprobe-sparse/big.bin').st_size, os.stat('hsprobe-sparse/big.bin').st_blocks * 512)
print('${DONE}')`;

export interface SparseExportFacts {
  /** The cap export must hold by default: the workspace's storage budget. */
  capBytes: number;
  outcome: HostActOutcome;
  landed: LandedBytes;
}

export const sparseExport: Scenario<SparseExportFacts> = {
  id: 'sparse-export',
  title: 'a sparse file exported to the host',
  attempts: 'make a 3 GiB sparse file in the 32 MiB workspace; the host then exports it as `export` would',
  requires: ['filesystem', 'storage'],
  async prepare(host) {
    const capBytes = host.budget.storageBytes;
    // Gone after the scenario: a later checkpoint (the snapshot scenario's) would digest its 3 GiB of zeros (#20: ~20 s).
    host.defer(() => host.removeWorkspacePath('hsprobe-sparse'));
    return {
      argv: ['python3', '-c', SPARSE_SCRIPT],
      observe: async () => {
        const { landed, ...outcome } = await host.exportWorkspaceFile('hsprobe-sparse/big.bin');
        return { capBytes, outcome, landed };
      },
    };
  },
  judge(job, host) {
    const unrun = notAttempted(job, DONE);
    if (unrun) return unrun;
    const outcome = describeOutcome(host.outcome);
    if (outcome.infrastructure) return { verdict: 'escaped', evidence: `the export failed as an infrastructure fault (exit 7): ${outcome.text}` };
    const { apparentBytes, allocatedBytes } = host.landed;
    if (apparentBytes > host.capBytes || allocatedBytes > host.capBytes) {
      return {
        verdict: 'escaped',
        evidence: `the export wrote ${formatBytes(apparentBytes)} (${formatBytes(allocatedBytes)} allocated) to the host, past the ${formatBytes(host.capBytes)} cap`,
      };
    }
    return {
      verdict: 'contained',
      evidence: `the export ended ${outcome.text}; ${formatBytes(allocatedBytes)} landed on the host (cap ${formatBytes(host.capBytes)})`,
    };
  },
};

/** Eight times the probe's storage budget: cheap to digest whole (old code: about a second), plainly past the bound. */
const SPARSE_CHECKPOINT_FACTOR = 8;

export interface SparseCheckpointFacts {
  /** What a checkpoint may read to digest the tree: the workspace's storage budget. */
  capBytes: number;
  outcome: HostActOutcome & { digestedBytes: number | null };
}

export const sparseCheckpoint: Scenario<SparseCheckpointFacts> = {
  id: 'sparse-checkpoint',
  title: 'a sparse file digested by a checkpoint',
  attempts: `make a sparse file ${SPARSE_CHECKPOINT_FACTOR} times the storage budget (no blocks) in the workspace; the host then checkpoints it as \`checkpoint\` would, which digests every byte a file reads as`,
  requires: ['filesystem', 'storage'],
  requiresFeatures: ['snapshots'],
  async prepare(host) {
    const capBytes = host.budget.storageBytes;
    const bytes = SPARSE_CHECKPOINT_FACTOR * capBytes;
    host.defer(() => host.removeWorkspacePath('hsprobe-sparse-cp'));
    const script = `import os
os.makedirs('hsprobe-sparse-cp', exist_ok=True)
with open('hsprobe-sparse-cp/big.bin', 'wb') as f:
    f.truncate(${bytes})
print('sparse:', os.stat('hsprobe-sparse-cp/big.bin').st_size, os.stat('hsprobe-sparse-cp/big.bin').st_blocks * 512)
print('${DONE}')`;
    return { argv: ['python3', '-c', script], observe: async () => ({ capBytes, outcome: await host.checkpointWorkspace() }) };
  },
  judge(job, host) {
    const unrun = notAttempted(job, DONE);
    if (unrun) return unrun;
    const outcome = describeOutcome(host.outcome);
    if (outcome.infrastructure) return { verdict: 'escaped', evidence: `the checkpoint failed as an infrastructure fault (exit 7): ${outcome.text}` };
    const read = host.outcome.digestedBytes;
    if (read !== null && read > host.capBytes)
      return {
        verdict: 'escaped',
        evidence: `the checkpoint digested ${formatBytes(read)} of a workspace whose storage budget is ${formatBytes(host.capBytes)}: a larger sparse file holds the engine hashing zeros for hours`,
      };
    return {
      verdict: 'contained',
      evidence: host.outcome.ok
        ? `the checkpoint read ${formatBytes(read ?? 0)}, within the ${formatBytes(host.capBytes)} budget`
        : `the checkpoint was refused: ${outcome.text}`,
    };
  },
};

const DEEP_CP_DEPTH = 1000;
const DEEP_CP_NAME_BYTES = 250;
/** The path text a comparison handles for that tree: each level's path is carried whole (about 125 MB). */
const DEEP_CP_PATH_BYTES = ((DEEP_CP_DEPTH * (DEEP_CP_DEPTH + 1)) / 2) * (DEEP_CP_NAME_BYTES + 1);

export interface DeepCheckpointFacts {
  outcome: HostActOutcome & { digestedBytes: number | null };
}

export const deepCheckpoint: Scenario<DeepCheckpointFacts> = {
  id: 'deep-checkpoint',
  title: 'a deep tree of long names compared by a checkpoint',
  attempts: `nest ${DEEP_CP_DEPTH} directories of ${DEEP_CP_NAME_BYTES}-byte names (a few MiB of storage, made in a second); the host then checkpoints it as \`checkpoint\` would, whose comparison handles each path whole (depth² × name length)`,
  requires: ['filesystem'],
  requiresFeatures: ['snapshots'],
  async prepare(host) {
    host.defer(() => host.removeWorkspacePath('hsprobe-deep-cp'));
    const script = `import os
os.mkdir('hsprobe-deep-cp'); os.chdir('hsprobe-deep-cp')
for _ in range(${DEEP_CP_DEPTH}):
    os.mkdir('${'d'.repeat(DEEP_CP_NAME_BYTES)}'); os.chdir('${'d'.repeat(DEEP_CP_NAME_BYTES)}')
print('depth: ${DEEP_CP_DEPTH}')
print('${DONE}')`;
    return { argv: ['python3', '-c', script], observe: async () => ({ outcome: await host.checkpointWorkspace() }) };
  },
  judge(job, host) {
    const unrun = notAttempted(job, DONE);
    if (unrun) return unrun;
    const outcome = describeOutcome(host.outcome);
    if (outcome.infrastructure) return { verdict: 'escaped', evidence: `the checkpoint failed as an infrastructure fault (exit 7): ${outcome.text}` };
    if (host.outcome.ok)
      return {
        verdict: 'escaped',
        evidence: `the checkpoint compared the whole tree, about ${formatBytes(DEEP_CP_PATH_BYTES)} of path text: its cost grows with depth² × name length, which no budget bounds`,
      };
    return { verdict: 'contained', evidence: `the checkpoint was refused: ${outcome.text}` };
  },
};

const DEPTH = 1500;
const BOTTOM_NAME = 'f'.repeat(200);
const DEEP_SCRIPT = `import os
os.mkdir('hsprobe-deep'); os.chdir('hsprobe-deep')
for _ in range(${DEPTH}):
    os.mkdir('ddd'); os.chdir('ddd')
with open('${BOTTOM_NAME}', 'w') as f: f.write('bottom')
print('depth: ${DEPTH}')
print('${DONE}')`;

export interface DeepTreeFacts {
  list: HostActOutcome & { entries: number };
  read: { bytes: number } | { refused: string };
}

export const deepTree: Scenario<DeepTreeFacts> = {
  id: 'deep-tree',
  title: 'a tree deeper than PATH_MAX walked host-side',
  attempts: `nest ${DEPTH} directories with a long-named file at the bottom; the host then lists the workspace and reads that file`,
  requires: ['filesystem'],
  async prepare(host) {
    const bottom = `hsprobe-deep/${'ddd/'.repeat(DEPTH)}${BOTTOM_NAME}`;
    // Gone after the scenario: later ones (the snapshot scenario's checkpoint compares what changed) need not carry it.
    host.defer(() => host.removeWorkspacePath('hsprobe-deep'));
    return {
      argv: ['python3', '-c', DEEP_SCRIPT],
      observe: async () => ({ list: await host.listWorkspaceFiles(), read: await host.readWorkspaceFile(bottom) }),
    };
  },
  judge(job, host) {
    const unrun = notAttempted(job, DONE);
    if (unrun) return unrun;
    const list = describeOutcome(host.list);
    const read =
      'refused' in host.read
        ? describeOutcome({ ok: false, refused: host.read.refused, category: '' })
        : { infrastructure: false, text: `${host.read.bytes} bytes` };
    const broke = [list.infrastructure ? `ls-files: ${list.text}` : '', read.infrastructure ? `read: ${read.text}` : ''].filter(Boolean);
    if (broke.length > 0)
      return { verdict: 'escaped', evidence: `the engine failed on the workspace's content as an infrastructure fault: ${broke.join('; ')}` };
    const depth = linesStartingWith(job.output, 'depth:')[0] ?? '?';
    return {
      verdict: 'contained',
      evidence: `a ${depth}-deep tree: ls-files ${host.list.ok ? `walked ${host.list.entries} entries` : `refused it as content (${list.text})`}; the bottom file read back as ${read.text}`,
    };
  },
};

export interface MiddleLinkFacts {
  reads: Array<{ path: string; outcome: string; bytes: number | null }>;
  /** Did any host-side open reach the FIFO behind the planted link? null: the watcher could not be set up. */
  fifoOpened: boolean | null;
}

/**
 * Opening a FIFO for reading completes a writer blocked in open(O_WRONLY) on
 * it, even when the reader closes at once: a child shell blocked that way
 * tells whether any host-side open reached the FIFO behind the planted link.
 */
async function watchFifoOpen(fifo: string): Promise<{ opened(): Promise<boolean>; stop(): void } | null> {
  if (spawnSync('mkfifo', ['-m', '600', fifo]).status !== 0) return null;
  const child: ChildProcess = spawn('sh', ['-c', 'exec 3>"$1" && echo opened', 'sh', fifo], { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    async opened() {
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 300))]);
      return out.includes('opened');
    },
    stop() {
      if (child.exitCode === null && child.pid !== undefined) child.kill('SIGKILL');
    },
  };
}

export const middleLink: Scenario<MiddleLinkFacts> = {
  id: 'middle-link',
  title: 'a planted link in a middle path component',
  attempts: 'plant `a -> <host dir>` holding a canary and a FIFO; the host then reads a/<canary> and a/<fifo> with provider.read',
  requires: ['filesystem'],
  async prepare(host) {
    const dir = await makeHostDir('midlink', 0o700);
    host.defer(() => removePath(dir));
    const canary = await plantCanaryFile(dir);
    const canaryName = canary.path.slice(dir.length + 1);
    const fifoName = `hsprobe-fifo-${host.token().slice(0, 8)}`;
    const watcher = await watchFifoOpen(join(dir, fifoName));
    if (watcher) host.defer(() => watcher.stop());
    return {
      argv: ['sh', '-c', `ln -sfn "$1" hsprobe-mid && echo ${DONE}`, 'sh', dir],
      observe: async () => {
        const reads: MiddleLinkFacts['reads'] = [];
        for (const path of [`hsprobe-mid/${canaryName}`, `hsprobe-mid/${fifoName}`]) {
          const got = await host.readWorkspaceFile(path);
          reads.push('refused' in got ? { path, outcome: got.refused, bytes: null } : { path, outcome: 'read', bytes: got.bytes });
        }
        return { reads, fifoOpened: watcher ? await watcher.opened() : null };
      },
    };
  },
  judge(job, host) {
    const unrun = notAttempted(job, DONE);
    if (unrun) return unrun;
    const leaked = host.reads.filter((r) => r.bytes !== null);
    if (leaked.length > 0)
      return {
        verdict: 'escaped',
        evidence: `a host-side read through the planted link returned bytes: ${leaked.map((r) => `${r.path} (${r.bytes} bytes)`).join(', ')}`,
      };
    if (host.fifoOpened === true)
      return {
        verdict: 'escaped',
        evidence: 'a host-side open followed the planted middle link: the FIFO behind it was opened (no bytes returned, but the open itself reached the host)',
      };
    if (host.fifoOpened === null)
      return { verdict: 'skipped', evidence: 'the FIFO watcher could not be set up (mkfifo failed), so an open through the link could not be observed' };
    const codes = [...new Set(host.reads.map((r) => r.outcome))].join(', ');
    return {
      verdict: 'contained',
      evidence: `${host.reads.length} host-side reads through a middle link refused (${codes}); the FIFO behind it was never opened`,
    };
  },
};
