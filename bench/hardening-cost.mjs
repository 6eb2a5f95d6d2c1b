// What the wave-2 hardening (#10) costs per job: the same job through the
// library of two builds, interleaved in one process (A B A B …) so machine
// drift hits both alike. The baseline is the last commit before the
// hardening (commit BASELINE_TAG below), checked out into a scratch worktree
// and built there; `HS_BENCH_BASELINE=/path/to/built/checkout` uses an
// existing build instead. Aim: current / baseline ≤ 1.05 on the library path.
// Needs root, a ready native provider and git; otherwise it skips and says why.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { interleave, ms, table, SPACED_CALLS_GAP_MS } from './lib/stats.mjs';

// The last commit before the hardening (also tagged `pre-hardening` where tags travel).
const BASELINE_TAG = '042f6557f7dc2c131594c163a0dee969f506f293';
const COMMANDS = [
  { key: 'true', label: '`/bin/true`', argv: ['/bin/true'] },
  { key: 'python', label: '`python3 -c pass`', argv: ['python3', '-c', 'pass'] },
];

export async function benchHardeningCost({ repo, rounds = Number(process.env.HS_BENCH_ROUNDS ?? 30), warmup = 3 }) {
  const skip = whyNot(repo);
  if (skip !== undefined) {
    process.stderr.write(`bench: hardening-cost skipped: ${skip}\n`);
    return { name: 'hardening-cost', result: { skipped: skip }, markdown: `Skipped: ${skip}` };
  }
  const scratch = mkdtempSync(join(tmpdir(), 'hs-bench-hardening-'));
  let worktree;
  try {
    let baselineRepo = process.env.HS_BENCH_BASELINE;
    if (baselineRepo === undefined) {
      worktree = join(scratch, 'baseline');
      git(repo, ['worktree', 'add', '--detach', worktree, BASELINE_TAG]);
      symlinkSync(join(repo, 'node_modules'), join(worktree, 'node_modules'));
      execFileSync(process.execPath, [join(repo, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(worktree, 'tsconfig.json')], {
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      // A helper the baseline's own setup would build (none before the hardening; kept for later baselines).
      baselineRepo = worktree;
    }
    const engines = [];
    for (const [name, root] of [
      ['baseline (pre-hardening)', baselineRepo],
      ['current', repo],
    ]) {
      const api = await import(pathToFileURL(join(root, 'dist', 'api', 'index.js')).href);
      const home = mkdtempSync(join(scratch, 'home-'));
      const engine = api.createHeadspace({ home, defaultProvider: 'native' });
      const workspaceId = (await engine.create({})).provenance.workspace_id;
      engines.push({ name, engine, workspaceId });
    }
    const load = { before: loadavg().map((x) => Number(x.toFixed(2))) };
    const tables = {};
    try {
      for (const command of COMMANDS) {
        tables[command.key] = await interleave(
          engines.map(({ name, engine, workspaceId }) => ({
            name,
            run: async () => {
              const r = await engine.run({ workspaceId, argv: command.argv });
              if (r.status !== 'success') throw new Error(`${name}: engine.run: ${r.status}: ${r.outcome_summary}`);
              await settle();
            },
          })),
          { rounds, warmup, gapMs: SPACED_CALLS_GAP_MS },
        );
      }
    } finally {
      load.after = loadavg().map((x) => Number(x.toFixed(2)));
      for (const { engine, workspaceId } of engines) {
        await engine.destroy({ workspaceId }).catch(() => undefined);
        engine.close();
      }
    }
    const sections = COMMANDS.map((command) => {
      const result = tables[command.key];
      const base = result['baseline (pre-hardening)'].median;
      const rows = Object.entries(result).map(([name, s]) => ({
        build: name,
        'median ms': ms(s.median),
        'p90 ms': ms(s.p90),
        'x baseline': (s.median / base).toFixed(3),
      }));
      return `${command.label}, library path (engine.run), n=${rounds} interleaved after ${warmup} warm-ups, an untimed ${SPACED_CALLS_GAP_MS} ms pause after each call\n\n${table(rows, ['build', 'median ms', 'p90 ms', 'x baseline'])}`;
    });
    const note = `Load average (1, 5, 15 min): ${load.before.join(', ')} before, ${load.after.join(', ')} after. Baseline: ${process.env.HS_BENCH_BASELINE ?? `commit ${BASELINE_TAG.slice(0, 7)}, built in a scratch worktree`}. Both builds run in this one process with their own HEADSPACE_HOME.`;
    return { name: 'hardening-cost', result: { rounds, load, tables }, markdown: `${sections.join('\n\n')}\n\n${note}` };
  } finally {
    if (worktree !== undefined) {
      try {
        git(repo, ['worktree', 'remove', '--force', worktree]);
      } catch {
        // removed with the scratch dir below; `git worktree prune` forgets it
      }
    }
    rmSync(scratch, { recursive: true, force: true });
    if (worktree !== undefined) git(repo, ['worktree', 'prune']);
  }
}

function whyNot(repo) {
  if (process.platform !== 'linux') return `needs Linux (found ${process.platform})`;
  if (process.getuid?.() !== 0) return 'needs root (the native provider budgets jobs with cgroups and runs them as dedicated uids)';
  if (!existsSync(join(repo, 'dist', 'api', 'index.js'))) return 'dist/ is missing: run npx tsc -p tsconfig.json first';
  if (process.env.HS_BENCH_BASELINE !== undefined) {
    return existsSync(join(process.env.HS_BENCH_BASELINE, 'dist', 'api', 'index.js'))
      ? undefined
      : `HS_BENCH_BASELINE=${process.env.HS_BENCH_BASELINE} has no dist/api/index.js`;
  }
  try {
    git(repo, ['rev-parse', '--verify', '--quiet', `${BASELINE_TAG}^{commit}`]);
  } catch {
    return `commit ${BASELINE_TAG.slice(0, 7)} is not in this clone (a shallow clone?); fetch it, or set HS_BENCH_BASELINE to a built checkout)`;
  }
  return undefined;
}

function git(repo, args) {
  return execFileSync('git', args, { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

const settle = () => new Promise((resolve) => setImmediate(resolve));
