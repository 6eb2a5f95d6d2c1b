/**
 * A Docker Engine that stops answering must not hold a call forever. Only the
 * probe and the workspace lookup were bounded: a job whose engine went quiet
 * mid-job held its `run` past its wall clock for good (the kill after the
 * clock waited on the engine, and so did the job's stream), and an engine
 * that answered the lookup but not an archive call held `put` for good.
 * Every Engine API call now waits a bounded time for its answer
 * (answer-bounds.ts: 10 s, a second more per MiB sent), and a job aborted on
 * a quiet engine is given up on after two bounds: the run ends as an
 * infrastructure failure (exit 7) and the workspace as failed, since whether
 * its job ended is unknown (fail closed: it runs no more jobs).
 */
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, cliAsync, makeHome } from '../../helpers/cli.js';
import { dockerReadiness } from '../../helpers/docker-readiness.js';
import { freezableEngine, type FreezableEngine } from '../../helpers/freezable-engine.js';

const readiness = await dockerReadiness();
const homes = [makeHome(), makeHome(), makeHome(), makeHome(), makeHome()];
const real = process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock';
const envOn = (host: string): Record<string, string> => ({ HEADSPACE_PROVIDER: 'docker', DOCKER_HOST: host });
afterAll(async () => {
  // Through the real engine: the relay is gone, and the quiet job's container still runs its sleep.
  if (readiness.ready) for (const [i, h] of homes.entries()) cli(h.home, ['destroy', `quiet-${i}`, '--force'], envOn(real));
  await Promise.all(homes.map((h) => h.cleanup()));
});

/** One answer's bound (answer-bounds.ts ANSWER_BOUND_MS). */
const BOUND_MS = 10_000;
/** An exec start's whole answer, its 101 and every header (they can come in several chunks): the stream has begun. */
const EXEC_STREAM_BEGUN = /101 UPGRADED[\s\S]*?\r\n\r\n/;

interface Quiet {
  home: string;
  env: Record<string, string>;
  relay: FreezableEngine;
}

/** Case `i`: its home, a relay before the real engine, and workspace quiet-i made through it; the relay closed after. */
async function onRelay(i: number, createArgs: string[], work: (q: Quiet) => Promise<void>): Promise<void> {
  const home = homes[i]!.home;
  const relay = await freezableEngine(join(home, 'relay.sock'), real);
  try {
    const env = envOn(relay.host);
    const made = await cliAsync(home, ['create', '--workspace-id', `quiet-${i}`, ...createArgs], env);
    expect(made.code, made.stderr).toBe(0);
    await work({ home, env, relay });
  } finally {
    await relay.close();
  }
}

/** The workspace's state as the store records it (read without the engine). */
const stateOf = (home: string, id: string) =>
  (JSON.parse(cli(home, ['ls', '--json']).stdout) as { key_findings: Array<{ id: string; state: string }> }).key_findings.find((w) => w.id === id)?.state;

// Every call through a relay is made with cliAsync: a spawnSync would block this process, and the relay in it.
// Each case has a home and a relay of its own, and waits on sockets: they run at once.
describe.runIf(readiness.ready).concurrent(`a docker engine that stops answering${readiness.ready ? '' : ` (skipped: ${readiness.reason})`}`, () => {
  it('ends a job whose engine went quiet mid-job after its wall clock and two bounds, exit 7, the workspace failed', async () => {
    await onRelay(0, ['--wall-clock-seconds', '5'], async ({ home, env, relay }) => {
      // Quiet from the job's exec start on (its 101, the run's first): waiting for the job's first output instead lost
      // the race with its 2 s wall clock on a loaded machine, and the engine never went quiet.
      const quiet = relay.freezeAfterEngineSays(EXEC_STREAM_BEGUN);
      const started = Date.now();
      const running = cliAsync(home, ['run', '--json', 'quiet-0', 'sleep', '300'], env);
      // A run that ended before the engine went quiet is shown with what it said, not left to the test's timeout.
      const first = await Promise.race([quiet.then(() => 'quiet' as const), running.then((r) => r)]);
      if (first !== 'quiet') expect(first).toBe('a run still going when the engine went quiet');
      const run = await running;
      // The wall clock (5 s), two bounds for the kill and the stream's end, one for the result's questions to the
      // engine (its capabilities and its view of the workspace, asked at once), and room for a loaded machine.
      expect(Date.now() - started, `${run.stdout}\n${run.stderr}`).toBeLessThan(5_000 + 3 * BOUND_MS + 8_000);
      expect(run.code, run.stderr).toBe(7);
      expect(run.stdout + run.stderr).toContain('the Docker Engine stopped answering after job');
      // The store says the workspace is failed: it is not offered another job on an engine that may still run this one.
      expect(stateOf(home, 'quiet-0')).toBe('failed');
      expect(relay.heldEver()).toBeGreaterThan(0);
    });
  }, 120_000);

  it('ends a put whose archive call is never answered after one bound, exit 7, naming the call', async () => {
    await onRelay(1, [], async ({ home, env, relay }) => {
      const file = join(home, 'note.txt');
      writeFileSync(file, 'hello\n');
      // The engine answers the lookup and every other call; an archive upload is never answered.
      relay.holdWhen(/^PUT \/[^ ]*\/archive/);
      const started = Date.now();
      const put = await cliAsync(home, ['put', 'quiet-1', `${file}`, 'note.txt'], env);
      const took = Date.now() - started;
      expect(took, `${put.stdout}\n${put.stderr}`).toBeLessThan(BOUND_MS + 12_000);
      expect(took).toBeGreaterThanOrEqual(BOUND_MS - 500);
      expect(put.code, put.stderr).toBe(7);
      expect(put.stderr).toMatch(/no answer within 10 s \(PUT containers archive\)/);
      expect(relay.heldEver()).toBeGreaterThan(0);
    });
  }, 120_000);

  it('ends a run whose exec start is never answered, and fails the workspace when the job cannot be seen ended', async () => {
    await onRelay(2, [], async ({ home, env, relay }) => {
      // The engine may start the job's process all the same: a run that only failed left it running unwatched, the
      // workspace ready for another job beside it (red team). The kill's own exec start goes unanswered too.
      relay.holdWhen(/^POST \/[^ ]*exec\/[^/ ]+\/start/);
      const started = Date.now();
      const run = await cliAsync(home, ['run', 'quiet-2', 'sleep', '120'], env);
      expect(Date.now() - started, `${run.stdout}\n${run.stderr}`).toBeLessThan(3 * BOUND_MS + 8_000);
      expect(run.code, run.stderr).toBe(7);
      expect(run.stdout + run.stderr).toContain('stopped answering as job');
      expect(stateOf(home, 'quiet-2')).toBe('failed');
    });
  }, 120_000);

  it('ends a put --overwrite whose removal exec goes quiet once started, after the engine stops answering about it', async () => {
    await onRelay(3, [], async ({ home, env, relay }) => {
      const file = join(home, 'note.txt');
      writeFileSync(file, 'hello\n');
      // A directory where the file goes: --overwrite removes it first, through a control exec (`rm -rf`).
      expect((await cliAsync(home, ['run', 'quiet-3', 'mkdir', 'note.txt'], env)).code).toBe(0);
      // That exec is answered (101), then nothing, and nothing more from the engine.
      const quiet = relay.freezeAfterEngineSays(EXEC_STREAM_BEGUN);
      const started = Date.now();
      const put = await cliAsync(home, ['put', '--overwrite', 'quiet-3', file, 'note.txt'], env);
      await quiet;
      // Silent for a bound, then a question about the exec that goes unanswered for another: the exec's stream is held
      // open (the relay passes on not even the engine's close), so only the watch on the engine can end it.
      expect(Date.now() - started, `${put.stdout}\n${put.stderr}`).toBeLessThan(3 * BOUND_MS + 8_000);
      expect(put.code, put.stderr).toBe(7);
      expect(put.stderr).toMatch(/no answer within 10 s \(GET exec json\)/);
      expect(put.stderr).not.toContain('headspace bug');
    });
  }, 120_000);

  it('fails a destroy the engine does not answer, leaving the workspace recorded, not destroyed', async () => {
    await onRelay(4, [], async ({ home, env, relay }) => {
      relay.holdWhen(/^DELETE \/[^ ]*containers\//);
      // A removal's bound is set short here (it is two minutes by default: a volume of two million files takes ~20 s).
      const destroy = await cliAsync(home, ['destroy', 'quiet-4', '--force'], { ...env, HEADSPACE_DOCKER_REMOVAL_SECONDS: '5' });
      // Recorded destroyed with its container "unverified", it was a container, volume and job nothing tracked.
      expect(destroy.code, `${destroy.stdout}\n${destroy.stderr}`).toBe(7);
      expect(stateOf(home, 'quiet-4')).toBe('ready');
    });
  }, 120_000);
});
