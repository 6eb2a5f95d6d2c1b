// Exporting a 1 GiB artifact against `cp` followed by `sha256sum` of the
// same file, interleaved. export copies and hashes in one pass, so the aim
// is to be no slower than that pair. Needs the native provider.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { interleave, ms, table } from './lib/stats.mjs';

export async function benchExportThroughput({ repo, sizeMiB = Number(process.env.HEADSPACE_BENCH_EXPORT_MIB ?? 1024), rounds = 3 }) {
  const api = await import(join(repo, 'dist', 'api', 'index.js'));
  const home = mkdtempSync(join(tmpdir(), 'hs-bench-export-'));
  const out = mkdtempSync(join(tmpdir(), 'hs-bench-export-out-'));
  // A provider is not reachable through the public engine (#11): build one that holds it, from the registry.
  const { PROVIDERS } = await import(join(repo, 'dist', 'providers', 'registry.js'));
  const engine = api.createEngine({ home, providers: PROVIDERS, defaultProvider: 'native', version: 'bench' });
  try {
    const probe = await (await engine.provider('native')).probe();
    if (!probe.ready)
      return skipped(
        `the native provider is not ready here: ${probe.checks
          .filter((c) => !c.ok)
          .map((c) => c.name)
          .join(', ')}`,
      );
    await engine.create({ workspaceId: 'bench-export', budget: { storageBytes: (sizeMiB + 64) * 1024 * 1024, wallClockSeconds: 600 } });
    const wrote = await engine.run({
      workspaceId: 'bench-export',
      argv: ['sh', '-c', `head -c ${sizeMiB}M /dev/urandom > big.bin`],
      declares: [{ name: 'big.bin', purpose: 'benchmark payload' }],
    });
    if (wrote.status !== 'success') throw new Error(`payload job: ${wrote.status}`);
    const source = join(workspaceFilesDir(home, 'bench-export'), 'big.bin');
    let n = 0;
    const result = await interleave(
      [
        {
          name: 'headspace export (copy + sha256 in one pass, fsync, atomic publish)',
          run: async () => {
            const to = join(out, `export-${n++}.bin`);
            await engine.export({ workspaceId: 'bench-export', name: 'big.bin', to });
            rmSync(to);
          },
        },
        {
          name: 'cp, then sha256sum',
          run: () => {
            const to = join(out, `cp-${n++}.bin`);
            execFileSync('cp', [source, to]);
            execFileSync('sha256sum', [to]);
            rmSync(to);
          },
        },
      ],
      { rounds, warmup: 1 },
    );
    const pair = result['cp, then sha256sum'].median;
    const rows = Object.entries(result).map(([name, s]) => ({
      contender: name,
      'median ms': ms(s.median),
      'p90 ms': ms(s.p90),
      'MiB/s': (sizeMiB / (s.median / 1000)).toFixed(0),
      'x cp+sha256sum': (s.median / pair).toFixed(2),
    }));
    return {
      name: 'export-throughput',
      result: { sizeMiB, ...result },
      markdown: `${sizeMiB} MiB artifact, ${rounds} interleaved rounds\n\n${table(rows, ['contender', 'median ms', 'p90 ms', 'MiB/s', 'x cp+sha256sum'])}`,
    };
  } finally {
    await engine.destroy({ workspaceId: 'bench-export', force: true }).catch(() => undefined);
    engine.close();
    rmSync(home, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
  }
}

/**
 * Where the workspace's files are on the host, so `cp` reads the very same
 * bytes: the loop-mounted filesystem of the workspace when there is one,
 * else its folder under the home.
 */
function workspaceFilesDir(home, id) {
  const mounts = readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[1] ?? '');
  return mounts.find((point) => point.endsWith(`/fs/${id}`)) ?? join(home, 'native', 'workspaces', id, 'files');
}

function skipped(reason) {
  return { name: 'export-throughput', result: { skipped: reason }, markdown: `skipped: ${reason}` };
}
