// Snapshots (#14): checkpoint, restore, fork and changes (diff) of a native
// workspace after 10 files changed, at two tree sizes (about 50 MB / 1,250
// files and 400 MB / 10,000 files), side by side with `cp -a`, `git add -A
// && git commit` and `tar` of the same tree, interleaved round by round.
// Calls the native provider's SnapshotOps directly (the verbs arrive with the
// engine half). The aim: each operation ≤ 20 ms median, and the large tree
// within 1.5× of the small one (cost grows with what changed, not the tree).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ms, summarize, table } from './lib/stats.mjs';

const SIZES = [
  { name: 'small', files: 1250, fileBytes: 40 * 1024 },
  { name: 'large', files: 10000, fileBytes: 40 * 1024 },
];
const CHANGED = 10;

export async function benchSnapshots({ repo, rounds = Number(process.env.HEADSPACE_BENCH_SNAPSHOT_ROUNDS ?? 7) }) {
  if (process.getuid?.() !== 0) return skipped('needs root (each native workspace is a loop-mounted image)');
  const { createNativeProvider } = await import(join(repo, 'dist', 'providers', 'native', 'native-provider.js'));
  const { defaultPolicy } = await import(join(repo, 'dist', 'core', 'policy', 'policy.js'));
  const { jobUserOfSlot } = await import(join(repo, 'dist', 'core', 'job-identity.js'));
  const home = mkdtempSync(join(tmpdir(), 'hs-bench-snap-'));
  const provider = createNativeProvider({ root: home });
  try {
    if (!(await provider.capabilities()).features?.includes('snapshots'))
      return skipped('the native provider lists no snapshots here (not ready, or no per-workspace images)');
    // Both trees first, then the rounds alternate small and large, so the host's drift hits both alike.
    const trees = [];
    for (const size of SIZES) trees.push(await setUpTree({ provider, home, size, defaultPolicy, jobUserOfSlot }));
    const warmup = 1;
    for (let round = 0; round < rounds + warmup; round++) for (const tree of trees) await tree.round(round, round >= warmup);
    const results = {};
    for (const tree of trees) results[tree.name] = await tree.finish();
    const ops = ['checkpoint', 'restore', 'fork', 'changes (diff)'];
    const rows = [];
    for (const op of ops) {
      const small = results.small.headspace[op];
      const large = results.large.headspace[op];
      rows.push({
        operation: `headspace ${op}`,
        'small median ms': ms(small.median),
        'small p90 ms': ms(small.p90),
        'large median ms': ms(large.median),
        'large p90 ms': ms(large.p90),
        'large ÷ small': (large.median / small.median).toFixed(2),
      });
    }
    for (const [name, s] of Object.entries(results.small.peers)) {
      const large = results.large.peers[name];
      rows.push({
        operation: name,
        'small median ms': ms(s.median),
        'small p90 ms': ms(s.p90),
        'large median ms': ms(large.median),
        'large p90 ms': ms(large.p90),
        'large ÷ small': (large.median / s.median).toFixed(2),
      });
    }
    const ratios = [];
    for (const size of ['small', 'large']) {
      const r = results[size];
      const hs = r.headspace;
      ratios.push({
        tree: `${size} (${r.files} files, ${r.mib} MiB)`,
        'checkpoint ÷ cp -a': (hs.checkpoint.median / r.peers['cp -a (checkpoint)'].median).toFixed(4),
        'checkpoint ÷ git add+commit': (hs.checkpoint.median / r.peers['git add -A && git commit (checkpoint)'].median).toFixed(3),
        'checkpoint ÷ tar -c': (hs.checkpoint.median / r.peers['tar -c (checkpoint)'].median).toFixed(4),
        'restore ÷ git reset --hard': (hs.restore.median / r.peers['git reset --hard (restore)'].median).toFixed(3),
        'restore ÷ tar -x': (hs.restore.median / r.peers['rm -rf + tar -x (restore)'].median).toFixed(4),
        'diff ÷ git status': (hs['changes (diff)'].median / r.peers['git status --porcelain (diff)'].median).toFixed(3),
        'first checkpoint ms (whole tree)': ms(r.firstCheckpointMs),
      });
    }
    return {
      name: 'snapshots',
      result: results,
      markdown: [
        `${CHANGED} files changed (${SIZES[0].fileBytes / 1024} KiB each) before every operation, ${rounds} interleaved rounds per tree.`,
        '',
        table(rows, ['operation', 'small median ms', 'small p90 ms', 'large median ms', 'large p90 ms', 'large ÷ small']),
        '',
        table(ratios, [
          'tree',
          'checkpoint ÷ cp -a',
          'checkpoint ÷ git add+commit',
          'checkpoint ÷ tar -c',
          'restore ÷ git reset --hard',
          'restore ÷ tar -x',
          'diff ÷ git status',
          'first checkpoint ms (whole tree)',
        ]),
        '',
        'fork includes making the child workspace (a fresh sparse ext4 image: mkfs and two mounts), which is most of it. The first checkpoint of a workspace reads its whole tree once (every file is new to it); every later one reads only what changed.',
      ].join('\n'),
    };
  } finally {
    for (const id of await provider.listWorkspaces().catch(() => [])) await provider.remove(id).catch(() => undefined);
    rmSync(home, { recursive: true, force: true });
  }
}

async function setUpTree({ provider, home, size, defaultPolicy, jobUserOfSlot }) {
  const id = `bench-snap-${size.name}`;
  const policy = defaultPolicy();
  policy.budget.storageBytes = 4 * size.files * size.fileBytes;
  await provider.create({ workspaceId: id, policy, profile: 'host', jobUser: jobUserOfSlot(4000 + size.files) });
  const merged = mergedDirOf(id);
  const peerTree = join(home, `peer-${size.name}`, 'tree');
  const names = [];
  for (let i = 0; i < size.files; i++) names.push(`d${String(i % 50).padStart(2, '0')}/f${String(i).padStart(5, '0')}.bin`);
  for (const root of [merged, peerTree]) {
    for (let d = 0; d < 50; d++) mkdirSync(join(root, `d${String(d).padStart(2, '0')}`), { recursive: true });
  }
  for (const name of names) {
    const data = randomBytes(size.fileBytes);
    writeFileSync(join(merged, name), data);
    writeFileSync(join(peerTree, name), data);
  }
  const t0 = process.hrtime.bigint();
  await provider.snapshots.checkpoint(id, 'cp-first');
  const firstCheckpointMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const peerDir = join(home, `peer-${size.name}`);
  const gitDir = join(peerDir, 'git');
  const git = (...args) =>
    execFileSync('git', ['-c', 'gc.auto=0', `--git-dir=${gitDir}`, `--work-tree=${peerTree}`, ...args], { stdio: ['ignore', 'pipe', 'ignore'] });
  execFileSync('git', ['init', '-q', '--bare', gitDir]);
  git('-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', 'add', '-A');
  git('-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', 'commit', '-q', '-m', 'first');

  let round = 0; // the change() pattern follows the round
  const change = (root) => {
    for (let k = 0; k < CHANGED; k++) writeFileSync(join(root, names[(round * CHANGED + k * 97) % names.length]), randomBytes(size.fileBytes));
  };
  const time = async (fn) => {
    const start = process.hrtime.bigint();
    await fn();
    return Number(process.hrtime.bigint() - start) / 1e6;
  };
  const hs = { checkpoint: [], restore: [], fork: [], 'changes (diff)': [] };
  const peers = {
    'cp -a (checkpoint)': [],
    'git add -A && git commit (checkpoint)': [],
    'tar -c (checkpoint)': [],
    'git reset --hard (restore)': [],
    'rm -rf + tar -x (restore)': [],
    'git status --porcelain (diff)': [],
  };
  const oneRound = async (at, keep) => {
    round = at;
    const push = (list, value) => keep && list.push(value);
    // headspace: change, checkpoint, change, diff, restore, fork.
    change(merged);
    push(hs.checkpoint, await time(() => provider.snapshots.checkpoint(id, `cp-${round}`)));
    change(merged);
    push(hs['changes (diff)'], await time(() => provider.snapshots.changes(id, `cp-${round}`, 1000)));
    push(hs.restore, await time(() => provider.snapshots.restore(id, `cp-${round}`)));
    const child = `${id}-fork-${round}`;
    push(
      hs.fork,
      await time(() =>
        provider.snapshots.fork(id, `cp-${round}`, { workspaceId: child, policy, profile: 'host', jobUser: jobUserOfSlot(5000 + round) }, `base-${round}`),
      ),
    );
    await provider.remove(child);
    // The peers on the same tree after the same kind of change.
    change(peerTree);
    const copy = join(peerDir, 'copy');
    push(peers['cp -a (checkpoint)'], await time(() => execFileSync('cp', ['-a', peerTree, copy])));
    rmSync(copy, { recursive: true, force: true });
    push(
      peers['git add -A && git commit (checkpoint)'],
      await time(() => {
        git('-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', 'add', '-A');
        git('-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', 'commit', '-q', '-m', `round ${round}`);
      }),
    );
    const tarball = join(peerDir, 'snap.tar');
    push(peers['tar -c (checkpoint)'], await time(() => execFileSync('tar', ['-cf', tarball, '-C', peerTree, '.'])));
    change(peerTree);
    push(peers['git status --porcelain (diff)'], await time(() => git('status', '--porcelain')));
    push(peers['git reset --hard (restore)'], await time(() => git('reset', '-q', '--hard', 'HEAD')));
    change(peerTree);
    push(
      peers['rm -rf + tar -x (restore)'],
      await time(() => {
        rmSync(peerTree, { recursive: true, force: true });
        mkdirSync(peerTree);
        execFileSync('tar', ['-xf', tarball, '-C', peerTree]);
      }),
    );
    rmSync(tarball, { force: true });
  };
  const sum = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, summarize(v)]));
  return {
    name: size.name,
    round: oneRound,
    async finish() {
      await provider.remove(id);
      rmSync(peerDir, { recursive: true, force: true, maxRetries: 5 });
      return { files: size.files, mib: Math.round((size.files * size.fileBytes) / 1048576), firstCheckpointMs, headspace: sum(hs), peers: sum(peers) };
    },
  };
}

/** The workspace's merged files on the host (`<mount base>/fs/<id>`), read from our mount table. */
function mergedDirOf(id) {
  const point = readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[1] ?? '')
    .find((p) => p.endsWith(`/fs/${id}`));
  if (point === undefined) throw new Error(`the files of ${id} are not mounted`);
  return point;
}

function skipped(reason) {
  return { name: 'snapshots', result: { skipped: reason }, markdown: `skipped: ${reason}` };
}
