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
import { freezableEngine } from '../../helpers/freezable-engine.js';

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

// Every call through a relay is made with cliAsync: a spawnSync would block this process, and the relay in it.
// Each case has a home and a relay of its own, and waits on sockets: they run at once.
describe.runIf(readiness.ready).concurrent(`a docker engine that stops answering${readiness.ready ? '' : ` (skipped: ${readiness.reason})`}`, () => {
  it('ends a job whose engine went quiet mid-job after its wall clock and two bounds, exit 7, the workspace failed', async () => {
    const home = homes[0]!.home;
    const relay = await freezableEngine(join(home, 'relay.sock'), real);
    try {
      const env = envOn(relay.host);
      const made = await cliAsync(home, ['create', '--workspace-id', 'quiet-0', '--wall-clock-seconds', '2'], env);
      expect(made.code, made.stderr).toBe(0);
      const quiet = relay.freezeAfterEngineSays('job-started');
      const started = Date.now();
      const running = cliAsync(home, ['run', '--json', 'quiet-0', 'sh', '-c', 'echo job-started; sleep 300'], env);
      await quiet;
      const run = await running;
      const took = Date.now() - started;
      // The wall clock (2 s), two bounds for the kill and the stream's end, one for the result's questions to the
      // engine (its capabilities and its view of the workspace, asked at once), and room for a loaded machine.
      expect(took, `${run.stdout}\n${run.stderr}`).toBeLessThan(2_000 + 3 * BOUND_MS + 8_000);
      expect(run.code, run.stderr).toBe(7);
      expect(run.stdout + run.stderr).toContain('the Docker Engine stopped answering after job');
      // The store says the workspace is failed: it is not offered another job on an engine that may still run this one.
      const listed = cli(home, ['ls', '--json']);
      const workspaces = (JSON.parse(listed.stdout) as { key_findings: Array<{ id: string; state: string }> }).key_findings;
      expect(workspaces.find((w) => w.id === 'quiet-0')?.state).toBe('failed');
      expect(relay.heldEver()).toBeGreaterThan(0);
    } finally {
      await relay.close();
    }
  }, 120_000);

  it('ends a put whose archive call is never answered after one bound, exit 7, naming the call', async () => {
    const home = homes[1]!.home;
    const relay = await freezableEngine(join(home, 'relay.sock'), real);
    try {
      const env = envOn(relay.host);
      expect((await cliAsync(home, ['create', '--workspace-id', 'quiet-1'], env)).code).toBe(0);
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
    } finally {
      await relay.close();
    }
  }, 120_000);

  it('ends a run whose exec start is never answered, and fails the workspace when the job cannot be seen ended', async () => {
    const home = homes[2]!.home;
    const relay = await freezableEngine(join(home, 'relay.sock'), real);
    try {
      const env = envOn(relay.host);
      expect((await cliAsync(home, ['create', '--workspace-id', 'quiet-2'], env)).code).toBe(0);
      // The engine may start the job's process all the same: a run that only failed left it running unwatched, the
      // workspace ready for another job beside it (red team). The kill's own exec start goes unanswered too.
      relay.holdWhen(/^POST \/[^ ]*exec\/[^/ ]+\/start/);
      const started = Date.now();
      const run = await cliAsync(home, ['run', 'quiet-2', 'sleep', '120'], env);
      expect(Date.now() - started, `${run.stdout}\n${run.stderr}`).toBeLessThan(3 * BOUND_MS + 8_000);
      expect(run.code, run.stderr).toBe(7);
      expect(run.stdout + run.stderr).toContain('stopped answering as job');
      const listed = JSON.parse(cli(home, ['ls', '--json']).stdout) as { key_findings: Array<{ id: string; state: string }> };
      expect(listed.key_findings.find((w) => w.id === 'quiet-2')?.state).toBe('failed');
    } finally {
      await relay.close();
    }
  }, 120_000);

  it('ends a put --overwrite whose removal exec goes quiet once started, after the engine stops answering about it', async () => {
    const home = homes[3]!.home;
    const relay = await freezableEngine(join(home, 'relay.sock'), real);
    try {
      const env = envOn(relay.host);
      expect((await cliAsync(home, ['create', '--workspace-id', 'quiet-3'], env)).code).toBe(0);
      const file = join(home, 'note.txt');
      writeFileSync(file, 'hello\n');
      // A directory where the file goes: --overwrite removes it first, through a control exec (`rm -rf`).
      expect((await cliAsync(home, ['run', 'quiet-3', 'mkdir', 'note.txt'], env)).code).toBe(0);
      // That exec is answered (101), then nothing, and nothing more from the engine.
      const quiet = relay.freezeAfterEngineSays('101 UPGRADED');
      const started = Date.now();
      const put = await cliAsync(home, ['put', '--overwrite', 'quiet-3', file, 'note.txt'], env);
      await quiet;
      // Silent for a bound, then a question about the exec that goes unanswered for another.
      expect(Date.now() - started, `${put.stdout}\n${put.stderr}`).toBeLessThan(3 * BOUND_MS + 8_000);
      expect(put.code, put.stderr).toBe(7);
      expect(put.stderr).toMatch(/no answer within 10 s \(GET exec json\)/);
      expect(put.stderr).not.toContain('headspace bug');
    } finally {
      await relay.close();
    }
  }, 120_000);

  it('fails a destroy the engine does not answer, leaving the workspace recorded, not destroyed', async () => {
    const home = homes[4]!.home;
    const relay = await freezableEngine(join(home, 'relay.sock'), real);
    try {
      const env = envOn(relay.host);
      expect((await cliAsync(home, ['create', '--workspace-id', 'quiet-4'], env)).code).toBe(0);
      relay.holdWhen(/^DELETE \/[^ ]*containers\//);
      // A removal's bound is set short here (it is two minutes by default: a volume of two million files takes ~20 s).
      const destroy = await cliAsync(home, ['destroy', 'quiet-4', '--force'], { ...env, HEADSPACE_DOCKER_REMOVAL_SECONDS: '5' });
      // Recorded destroyed with its container "unverified", it was a container, volume and job nothing tracked.
      expect(destroy.code, `${destroy.stdout}\n${destroy.stderr}`).toBe(7);
      const listed = JSON.parse(cli(home, ['ls', '--json']).stdout) as { key_findings: Array<{ id: string; state: string }> };
      expect(listed.key_findings.find((w) => w.id === 'quiet-4')?.state).toBe('ready');
    } finally {
      await relay.close();
    }
  }, 120_000);
});
