// How much a CLI verb costs over a bare node start. Aim: under 2x, by
// lazy-loading what a verb does not need. Interleaved, median and p90.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { interleave, ms, table } from './lib/stats.mjs';

export async function benchCliStartup({ repo, rounds = 20 }) {
  const home = mkdtempSync(join(tmpdir(), 'hs-bench-cli-'));
  const env = { ...process.env, HEADSPACE_HOME: home, HEADSPACE_PROVIDER: 'fake' };
  const bin = join(repo, 'bin', 'headspace');
  const exec = (cmd, args) => () => {
    const r = spawnSync(cmd, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  };
  spawnSync(bin, ['ls', '--json'], { env }); // create the store once
  const result = await interleave(
    [
      { name: 'node -e 0', run: exec(process.execPath, ['-e', '0']) },
      { name: 'headspace version', run: exec(bin, ['version']) },
      { name: 'headspace ls --json', run: exec(bin, ['ls', '--json']) },
    ],
    { rounds },
  );
  rmSync(home, { recursive: true, force: true });
  const floor = result['node -e 0'].median;
  const rows = Object.entries(result).map(([name, s]) => ({
    contender: name,
    'median ms': ms(s.median),
    'p90 ms': ms(s.p90),
    'x node start': (s.median / floor).toFixed(2),
  }));
  return { name: 'cli-startup', result, markdown: table(rows, ['contender', 'median ms', 'p90 ms', 'x node start']) };
}
