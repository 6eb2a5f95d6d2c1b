/**
 * Claim is atomic across processes: four real processes claim from one
 * subscription in one store at once, waiting for events while the jobs run,
 * and every event goes to exactly one of them — none twice, none lost. Two
 * claimers are the CLI (`events claim --wait`), two the library.
 */
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createHeadspace } from '../../../src/api/index.js';
import { BIN, REPO, makeHome } from '../../helpers/cli.js';
import { eventsOf, subscriptionIdOf } from '../../helpers/events.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

const JOBS = 40;

async function waitUntil(ready: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error('the four claimers did not all start claiming within the time allowed');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * One claimer: claims (max 3, waiting) until the producer is done and a claim
 * comes back empty; prints each id it got. After its first claim it writes
 * `readyFile`, so the producer starts only once all four are claiming (a
 * claimer that started late used to find every event already taken, and the
 * race this test is about never happened). After a non-empty claim it pauses
 * briefly, so no one claimer can drain a burst before the others call again.
 */
function claimer(kind: 'cli' | 'library', sub: string, doneFile: string, readyFile: string): Promise<string[]> {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', HEADSPACE_HOME: home, HEADSPACE_PROVIDER: 'fake' };
  const script =
    kind === 'library'
      ? `const { createHeadspace } = await import(${JSON.stringify(join(REPO, 'dist', 'api', 'index.js'))});
         const { existsSync, writeFileSync } = await import('node:fs');
         const engine = createHeadspace({ defaultProvider: 'fake' });
         for (;;) {
           const done = existsSync(${JSON.stringify(doneFile)});
           const pkg = await engine.claimEvents({ subscriptionId: ${JSON.stringify(sub)}, max: 3, waitSeconds: 0.5 });
           const ids = pkg.key_findings.filter((f) => f.kind === 'event').map((f) => f.id);
           for (const id of ids) console.log(id);
           writeFileSync(${JSON.stringify(readyFile)}, '');
           if (ids.length) {
             await engine.ackEvents({ subscriptionId: ${JSON.stringify(sub)}, eventIds: ids });
             await new Promise((r) => setTimeout(r, 30));
           } else if (done) break;
         }
         engine.close();`
      : `const { execFileSync } = await import('node:child_process');
         const { existsSync, writeFileSync } = await import('node:fs');
         for (;;) {
           const done = existsSync(${JSON.stringify(doneFile)});
           const out = JSON.parse(execFileSync(${JSON.stringify(BIN)}, ['events', 'claim', ${JSON.stringify(sub)}, '--max', '3', '--wait', '0.5', '--json'], { encoding: 'utf8' }));
           const ids = out.key_findings.filter((f) => f.kind === 'event').map((f) => f.id);
           for (const id of ids) console.log(id);
           writeFileSync(${JSON.stringify(readyFile)}, '');
           if (!ids.length && done) break;
         }`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { env });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) => (code === 0 ? resolve(out.split('\n').filter(Boolean)) : reject(new Error(`${kind} claimer exited ${code}: ${err}`))));
  });
}

describe('four processes claiming at once', () => {
  it('each get a disjoint share and together every event', { timeout: 120_000 }, async () => {
    const engine = createHeadspace({ home, defaultProvider: 'fake' });
    try {
      await engine.create({ workspaceId: 'w', budget: { concurrency: 4 } });
      const sub = subscriptionIdOf(await engine.subscribeEvents({ workspaceId: 'w' }));
      const doneFile = join(home, 'producer-done');
      const readyFiles = [0, 1, 2, 3].map((i) => join(home, `claimer-ready-${i}`));
      const kinds = ['cli', 'cli', 'library', 'library'] as const;
      const claimers = kinds.map((kind, i) => claimer(kind, sub, doneFile, readyFiles[i]!));
      await waitUntil(() => readyFiles.every((f) => existsSync(f)), 60_000);
      const jobIds: string[] = [];
      for (let i = 0; i < JOBS; i++) jobIds.push((await engine.run({ workspaceId: 'w', argv: ['echo', String(i)] })).provenance.job_id!);
      writeFileSync(doneFile, '');
      const shares = await Promise.all(claimers);
      const all = shares.flat();
      expect(all).toHaveLength(JOBS);
      expect(new Set(all).size).toBe(JOBS);
      expect(existsSync(doneFile)).toBe(true);
      // Nothing is left, and what they got is exactly the jobs' events.
      await engine.requeueEvents({ subscriptionId: sub, staleSeconds: 0 });
      const rest = eventsOf(await engine.claimEvents({ subscriptionId: sub, max: 1000 }));
      const cliShare = new Set([...shares[0]!, ...shares[1]!]);
      expect(rest.every((e) => cliShare.has(e.id))).toBe(true);
      const { SqliteStore } = await import('../../../src/core/store/sqlite-store.js');
      const store = SqliteStore.open(home);
      try {
        expect(new Set(all)).toEqual(new Set(jobIds.map((id) => store.events.eventsOfJob(id)[0]!.id)));
      } finally {
        store.close();
      }
      // With this many events each kind of claimer got some: the race was real.
      expect(shares.filter((s) => s.length > 0).length).toBeGreaterThanOrEqual(2);
    } finally {
      engine.close();
    }
  });
});
