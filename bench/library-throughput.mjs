// Library create+run+destroy cycles per second on the fake provider (in
// memory, real SQLite store on disk). Aim: at least 1,000/s.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fakeCycleEngine } from './lib/fake-cycle.mjs';

export async function benchLibraryThroughput({ repo, seconds = 3 }) {
  const api = await import(join(repo, 'dist', 'api', 'index.js'));
  const home = mkdtempSync(join(tmpdir(), 'hs-bench-lib-'));
  const { engine, cycle } = fakeCycleEngine(api, home);
  for (let i = 0; i < 50; i++) await cycle();
  let count = 0;
  const started = process.hrtime.bigint();
  const deadline = started + BigInt(seconds * 1e9);
  while (process.hrtime.bigint() < deadline) {
    await cycle();
    count++;
  }
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  engine.close();
  rmSync(home, { recursive: true, force: true });
  const perSecond = count / elapsed;
  return {
    name: 'library-throughput',
    result: { cycles: count, seconds: elapsed, perSecond },
    markdown: `| measure | value |\n| --- | --- |\n| create+run+destroy cycles | ${count} in ${elapsed.toFixed(2)} s |\n| cycles per second | ${perSecond.toFixed(0)} |`,
  };
}
