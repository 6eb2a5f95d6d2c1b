/**
 * Concurrency: several CLI processes issue mixed verbs against the same and
 * different workspaces for a bounded time. Every exit is one of the codes
 * expected for that verb; every refusal is a clean WORKSPACE_BUSY (exit 2)
 * naming the running job or the operation in progress — never a stack
 * trace. Afterwards the store passes integrity_check, every job has exactly
 * one terminal record, nothing is recorded running or left open, every
 * successful put and export is recorded once (no lost update), and the
 * provider holds exactly the workspaces the store says are live.
 * 12 s by default; HEADSPACE_LONG_TESTS=1 soaks for 60 s.
 */
import { writeFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { engineWithProviders } from '../helpers/engine.js';
import { SqliteStore } from '../../src/core/store/sqlite-store.js';
import { makeHome } from '../helpers/cli.js';
import { LONG, STACK_TRACE, integrityCheck, pick, seedFromEnv, seeded, sha256File, spawnCli } from './reliability-helpers.js';

const SECONDS = LONG ? 60 : 12;
const WORKERS = 4;
const SEED = seedFromEnv('HEADSPACE_CONCURRENCY_SEED', 424_242);
const SHARED = ['shared-a', 'shared-b'];
const CONTESTED = 'contested';

interface Outcome {
  verb: string;
  args: string[];
  code: number | null;
  stdout: string;
  stderr: string;
}

const { home, cleanup } = makeHome();
afterAll(cleanup);

/** The error document of a refusal under --json. */
function errorOf(o: Outcome): { code: number; reason: string; message: string } | null {
  try {
    return JSON.parse(o.stderr) as { code: number; reason: string; message: string };
  } catch {
    return null;
  }
}

describe(`concurrency: ${WORKERS} processes for ${SECONDS} s (seed ${SEED})`, () => {
  it('never corrupts, never loses an update, and refuses only cleanly', { timeout: (SECONDS + 60) * 1000 }, async () => {
    const engine = engineWithProviders(home, 'fake');
    const input = join(home, 'input.txt');
    writeFileSync(input, 'concurrency input\n');
    const outDir = join(home, 'out');
    mkdirSync(outDir);
    for (const id of SHARED) {
      await engine.create({ workspaceId: id, provider: 'fake' });
      await engine.put({ workspaceId: id, hostPath: input, destination: 'shared.txt' });
      await engine.declare({ workspaceId: id, name: 'shared.txt', purpose: 'exported concurrently' });
    }
    await engine.create({ workspaceId: CONTESTED, provider: 'fake' });

    // A certain contention first: while a job runs in this process, other processes are refused, naming it.
    const holding = engine.run({ workspaceId: SHARED[0]!, argv: ['sleep', '4'], jobId: 'job-holder' });
    // Wait until the job is recorded running (a fixed 200 ms was not always enough on a loaded machine).
    for (let i = 0; i < 100; i++) {
      const seen = await engine.inspect({ handle: 'job-holder' }).catch(() => null);
      if (seen?.status === 'running') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const refused = await Promise.all([
      spawnCli(home, ['run', '--json', SHARED[0]!, 'echo', 'no']),
      spawnCli(home, ['put', SHARED[0]!, input, 'refused.txt', '--json']),
      spawnCli(home, ['export', SHARED[0]!, 'shared.txt', '--to', join(outDir, 'refused.txt'), '--json']),
      spawnCli(home, ['destroy', SHARED[0]!, '--json']),
    ]);
    for (const r of refused) {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain('"reason":"WORKSPACE_BUSY"');
      expect(r.stderr).toContain('job job-holder is running');
    }
    expect((await holding).status).toBe('success');
    expect(existsSync(join(outDir, 'refused.txt'))).toBe(false);

    const outcomes: Outcome[] = [];
    const deadline = Date.now() + SECONDS * 1000;
    let serial = 0;
    async function worker(w: number): Promise<void> {
      const rng = seeded(SEED + w);
      const mine = `private-${w}`;
      let mineLive = false;
      while (Date.now() < deadline) {
        const n = serial++;
        const shared = pick(rng, SHARED);
        const choice = pick(rng, ['run', 'run', 'run', 'put', 'export', 'stop', 'inspect', 'contested', 'contested', 'private'] as const);
        let args: string[];
        switch (choice) {
          case 'run':
            // Mostly jobs that last, so other processes meet them running.
            args = [
              'run',
              shared,
              ...pick(rng, [
                ['echo', `n${n}`],
                ['sleep', '0.6', '&&', 'echo', 'slept'],
                ['sleep', '0.6'],
                ['write', `w${n}.txt`, 'x'],
              ]),
            ];
            break;
          case 'put':
            args = ['put', shared, input, `put-${n}.txt`];
            break;
          case 'export':
            args = ['export', shared, 'shared.txt', '--to', join(outDir, `${shared}-${n}.txt`)];
            break;
          case 'stop':
            args = ['stop', shared, '--apply'];
            break;
          case 'inspect':
            args = pick(rng, [['inspect', shared], ['ls'], ['doctor', '--provider', 'fake']]);
            break;
          case 'contested':
            args = pick(rng, [
              ['run', CONTESTED, 'sleep', '0.6'],
              ['destroy', CONTESTED, '--force'],
              ['create', '--workspace-id', CONTESTED],
              ['put', CONTESTED, input, `c-${n}.txt`],
            ]);
            break;
          case 'private':
            args = mineLive
              ? pick(rng, [
                  ['run', mine, 'echo', 'mine'],
                  ['destroy', mine],
                ])
              : ['create', '--workspace-id', mine];
            break;
        }
        const run = await spawnCli(home, [args[0]!, '--json', ...args.slice(1)]); // run takes its flags before the workspace id
        const outcome = {
          verb: choice === 'contested' || choice === 'inspect' || choice === 'private' ? `${choice}:${args[0]}` : choice,
          args,
          code: run.code,
          stdout: run.stdout,
          stderr: run.stderr,
        };
        outcomes.push(outcome);
        if (choice === 'private' && run.code === 0) mineLive = args[0] === 'create' || (args[0] === 'run' && mineLive);
      }
    }
    await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));

    // Every exit is expected for its verb, and every refusal is clean.
    const expected: Record<string, number[]> = {
      run: [0, 2, 5],
      put: [0, 2],
      export: [0, 2],
      stop: [0, 5],
      'inspect:inspect': [0],
      'inspect:ls': [0],
      'inspect:doctor': [0],
      'contested:run': [0, 1, 2, 5],
      'contested:destroy': [0, 1, 2],
      'contested:create': [0, 1],
      'contested:put': [0, 1, 2],
      'private:create': [0],
      'private:run': [0],
      'private:destroy': [0],
    };
    const counts: Record<string, number> = {};
    for (const o of outcomes) {
      const label = `${o.args.join(' ')} → ${o.code}: ${o.stderr.slice(0, 300)}`;
      counts[o.code === 2 ? 'busy' : String(o.code)] = (counts[o.code === 2 ? 'busy' : String(o.code)] ?? 0) + 1;
      expect(expected[o.verb], label).toContain(o.code);
      expect(o.stderr, label).not.toMatch(STACK_TRACE);
      expect(o.stdout, label).not.toMatch(STACK_TRACE);
      if (o.code === 2) {
        const error = errorOf(o);
        expect(error?.reason, label).toBe('WORKSPACE_BUSY');
        expect(error?.message, label).toMatch(/is busy: (job \S+ is running|(a put|an export|a destroy) is in progress \(process \d+\))/);
      }
      if (o.code === 1) {
        // Only the contested workspace may be gone or already there: a lifecycle race would read ILLEGAL_TRANSITION.
        expect(['WORKSPACE_DESTROYED', 'WORKSPACE_NOT_FOUND', 'WORKSPACE_EXISTS'], label).toContain(errorOf(o)?.reason);
      }
    }
    console.log(`concurrency: ${outcomes.length} CLI calls in ${SECONDS} s; exits ${JSON.stringify(counts)}`);
    expect(outcomes.length, 'every worker got through several calls').toBeGreaterThanOrEqual(WORKERS * 2);

    // No corruption, one terminal record per job, nothing left running or open.
    expect(integrityCheck(home)).toBe('ok');
    const store = SqliteStore.open(home);
    try {
      const live = store.listWorkspaces();
      expect(live.filter((w) => w.state === 'running')).toEqual([]);
      expect(store.runningJobs()).toEqual([]);
      expect(store.openIntents()).toEqual([]);
      for (const ws of store.listWorkspaces({ includeDestroyed: true })) {
        for (const job of store.listJobs(ws.id)) {
          expect(job.state, job.id).toBe('finished');
          expect(job.status, job.id).not.toBeNull();
          expect(job.finishedAt, job.id).not.toBeNull();
        }
      }
      // Each run the CLI reported is the job's one terminal record.
      for (const o of outcomes.filter((x) => x.args[0] === 'run' && x.code !== 2 && x.code !== 1)) {
        const pkg = JSON.parse(o.stdout) as { status: string; provenance: { job_id: string } };
        const job = store.getJob(pkg.provenance.job_id);
        if (job) expect(job.status, o.args.join(' ')).toBe(pkg.status);
      }
      // No lost update: every successful put and export is recorded, once.
      for (const id of SHARED) {
        const puts = outcomes.filter((o) => o.args[0] === 'put' && o.args[1] === id && o.code === 0).map((o) => o.args[3]);
        const recorded = store.listInputs(id).map((i) => i.destination);
        for (const dest of puts)
          expect(
            recorded.filter((d) => d === dest),
            `${id}:${dest}`,
          ).toHaveLength(1);
        const exported = store.listArtifacts(id).find((a) => a.name === 'shared.txt')!;
        const exports = outcomes.filter((o) => o.args[0] === 'export' && o.args[1] === id && o.code === 0);
        if (exports.length) expect(exported.exportedTo, id).not.toBeNull();
        for (const o of exports) expect(sha256File(o.args[4]!)).toBe(exported.exportedSha256);
      }
      // The provider holds exactly the live workspaces (a lost write to its state would drop one).
      const held = await (await engine.provider('fake')).listWorkspaces();
      expect(held.sort()).toEqual(live.map((w) => w.id).sort());
      expect(existsSync(join(home, 'fake', 'state.json.lock'))).toBe(false);
    } finally {
      store.close();
      engine.close();
    }
  });
});
