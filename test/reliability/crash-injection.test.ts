/**
 * Crash injection: the CLI is killed with SIGKILL at randomized points of
 * create, put, run, export and destroy — by a seeded delay after spawn
 * (0–400 ms), or exactly at a named point (HEADSPACE_TEST_CRASH_AT, see
 * src/core/crash-points.ts). After each kill:
 *   - the store opens and PRAGMA integrity_check is ok;
 *   - plain `doctor` reports every leftover (each dead intent, each job
 *     recorded running without its process, each temporary file);
 *   - `doctor --repair --apply --verify` succeeds, after which no job is
 *     recorded running, no export temporary file, fake state temporary or
 *     lock remains, and every intent still open is a reported judgement call;
 *   - no export is lost or partial: a destination either does not exist or
 *     holds the whole artifact, and a recorded export has its recorded digest;
 *   - the workspace is usable (a new run succeeds) or cleanly destroyable.
 * A detached run's supervisor is killed the same way, at its own points
 * (supervise:before-launch, supervise:during-job, supervise:after-provider-call)
 * and at seeded moments, with and without a stop pending (#15 item 5); the
 * home's shared supervisor is killed with two jobs in flight under it.
 * CI-sized by default (30 trials on fake, a few on native);
 * HEADSPACE_LONG_TESTS=1 runs 200 on fake. HEADSPACE_CRASH_SEED=N replays.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineWithProviders } from '../helpers/engine.js';
import type { EngineWithProviders } from '../../src/core/engine.js';
import { SqliteStore } from '../../src/core/store/sqlite-store.js';
import { isOwnerAlive } from '../../src/core/store/owner.js';
import { makeHome } from '../helpers/cli.js';
import { nativeReadiness } from '../unit/providers/native/native-readiness.js';
import { reclaimShellRunning } from '../unit/providers/native/native-fixture.js';
import { LONG, fakeTemporaries, integrityCheck, partialFiles, pick, seedFromEnv, seeded, sha256File, spawnCli } from './reliability-helpers.js';
import { attentionTexts } from '../helpers/result-packages.js';

const SEED = seedFromEnv('HEADSPACE_CRASH_SEED', 20_250_601);
const TRIALS = LONG ? 200 : 30;
const OPS = ['create', 'put', 'run', 'export', 'destroy'] as const;
type Op = (typeof OPS)[number];
const POINTS: Record<Op, string[]> = {
  create: ['create:after-intent', 'create:after-provider-call'],
  put: ['put:after-intent', 'put:after-provider-call'],
  run: ['run:after-intent', 'run:after-provider-call'],
  export: ['export:after-intent', 'export:before-publish', 'export:after-provider-call'],
  destroy: ['remove:after-intent', 'remove:after-provider-call'],
};

interface Trial {
  home: string;
  engine: EngineWithProviders;
  outDir: string;
  /** Host file the trials put in and export (big enough that copying takes a moment). */
  big: string;
  bigSha: string;
}

/** Everything a killed operation can leave, found independently of doctor. */
function leftoversOf(home: string, outDir: string): { deadIntents: number[]; orphanJobs: string[]; files: string[] } {
  const store = SqliteStore.open(home);
  try {
    return {
      deadIntents: store
        .openIntents()
        .filter((i) => !isOwnerAlive(i.owner))
        .map((i) => i.id),
      orphanJobs: store
        .runningJobs()
        .filter((j) => !isOwnerAlive(j.owner))
        .map((j) => j.id),
      files: [...partialFiles(outDir), ...fakeTemporaries(home)],
    };
  } finally {
    store.close();
  }
}

async function checkAfterCrash(t: Trial, id: string, destination: string | null, label: string): Promise<void> {
  expect(integrityCheck(t.home), label).toBe('ok');
  const before = leftoversOf(t.home, t.outDir);
  const report = await t.engine.doctor({ provider: 'fake' });
  const text = [...attentionTexts(report), ...report.warnings].join('\n');
  for (const intent of before.deadIntents) expect(text, `${label}: doctor names intent #${intent}`).toContain(`intent #${intent} `);
  for (const job of before.orphanJobs) expect(text, `${label}: doctor names job ${job}`).toContain(`job ${job}`);
  for (const file of before.files) {
    // The fake's state lock of a dead holder is taken over by the lock protocol
    // itself the next time the provider is used (doctor uses it too): gone by
    // the time doctor looks is not a leftover it failed to name.
    if (file.endsWith('.lock') && !existsSync(file)) continue;
    expect(text, `${label}: doctor names ${file}`).toContain(basename(file));
  }

  const repaired = await t.engine.doctor({ provider: 'fake', repair: true, apply: true, verify: true });
  // Judged on this home alone: doctor also sweeps the runtime folders other homes on this shared host keep under
  // /run/headspace-native, and one that comes of age between the repair and its verify is not this trial's doing (a
  // whole-suite run failed that way beside the native files). Anything else left unrepaired fails the trial.
  const ownWarnings = repaired.warnings.filter((w) => !w.includes('/run/headspace-native/') && !/^the docker provider could not list its leftovers/.test(w));
  if (repaired.status !== 'success') expect(ownWarnings, `${label}: ${repaired.warnings.join('; ')}`).toEqual([]);
  const after = leftoversOf(t.home, t.outDir);
  expect(after.orphanJobs, label).toEqual([]);
  expect(after.files, label).toEqual([]);
  const judgement = attentionTexts(repaired)
    .filter((a) => a.startsWith('judgement call'))
    .join('\n');
  for (const intent of after.deadIntents)
    expect(judgement, `${label}: intent #${intent} left open is a reported judgement call`).toContain(`intent #${intent} `);

  const store = SqliteStore.open(t.home);
  try {
    // No export lost or partial.
    const ws = store.getWorkspace(id);
    for (const artifact of ws ? store.listArtifacts(id) : []) {
      if (artifact.exportedTo === null) continue;
      expect(existsSync(artifact.exportedTo), `${label}: recorded export exists`).toBe(true);
      expect(sha256File(artifact.exportedTo), `${label}: recorded export has its digest`).toBe(artifact.exportedSha256);
    }
    if (destination !== null && existsSync(destination)) expect(sha256File(destination), `${label}: a published export is whole`).toBe(t.bigSha);
    // Usable, or cleanly destroyable.
    if (ws && ws.state !== 'destroyed') {
      const view = await (await t.engine.provider('fake')).inspect(id);
      if (ws.state === 'ready' && view.state === 'ready') {
        const ran = await t.engine.run({ workspaceId: id, argv: ['echo', 'still-usable'] });
        expect(ran.status, label).toBe('success');
      }
      const destroyed = await t.engine.destroy({ workspaceId: id, force: true });
      expect(destroyed.status, label).toBe('success');
      expect(store.getWorkspace(id)?.state, label).toBe('destroyed');
    }
    // A destroy cut short is finished by that destroy: its intent is provably settled now.
    await t.engine.doctor({ provider: 'fake', repair: true, apply: true });
    expect(
      store.openIntents().filter((i) => !isOwnerAlive(i.owner)),
      `${label}: nothing left open once the workspace is gone`,
    ).toEqual([]);
  } finally {
    store.close();
  }
}

async function setUp(t: Trial, op: Op, id: string): Promise<void> {
  if (op === 'create') return;
  await t.engine.create({ workspaceId: id, provider: 'fake' });
  if (op === 'export' || op === 'destroy') {
    await t.engine.put({ workspaceId: id, hostPath: t.big, destination: 'big.bin' });
    await t.engine.declare({ workspaceId: id, name: 'big.bin', purpose: 'crash test' });
  }
  if (op === 'destroy') await t.engine.export({ workspaceId: id, name: 'big.bin', to: join(t.outDir, `${id}.kept`) });
}

function argsFor(t: Trial, op: Op, id: string): { args: string[]; destination: string | null } {
  switch (op) {
    case 'create':
      return { args: ['create', '--workspace-id', id], destination: null };
    case 'put':
      return { args: ['put', id, t.big, 'in.bin'], destination: null };
    case 'run':
      return { args: ['run', id, 'echo', 'start', '&&', 'sleep', '0.3', '&&', 'write', 'o.txt', 'x', '&&', 'echo', 'end'], destination: null };
    case 'export': {
      const destination = join(t.outDir, `${id}.bin`);
      return { args: ['export', id, 'big.bin', '--to', destination], destination };
    }
    case 'destroy':
      return { args: ['destroy', id, '--force'], destination: null };
  }
}

describe(`crash injection on fake (${TRIALS} trials, seed ${SEED})`, () => {
  const { home, cleanup } = makeHome();
  let t: Trial;
  beforeAll(() => {
    const outDir = join(home, 'out');
    mkdirSync(outDir);
    const big = join(home, 'big.bin');
    writeFileSync(big, randomBytes(4 * 1024 * 1024));
    t = { home, engine: engineWithProviders(home, 'fake'), outDir, big, bigSha: sha256File(big) };
  });
  afterAll(async () => {
    t.engine.close();
    await cleanup();
  });

  // 30 trials of a few CLI calls each: ~60 s alone on this machine kind, past 120 s when the machine is loaded.
  it('keeps every invariant whatever the kill point', { timeout: LONG ? 900_000 : 240_000 }, async () => {
    const rng = seeded(SEED);
    const seen = { killed: 0, finished: 0, byPoint: 0 };
    for (let i = 0; i < TRIALS; i++) {
      const op = pick(rng, OPS);
      const id = `c${i}`;
      const byPoint = rng() < 0.5;
      const point = pick(rng, POINTS[op]);
      const delay = Math.floor(rng() * 400);
      await setUp(t, op, id);
      const { args, destination } = argsFor(t, op, id);
      const label = `trial ${i} (seed ${SEED}): ${op} killed ${byPoint ? `at ${point}` : `after ${delay} ms`}`;
      const run = await spawnCli(home, args, byPoint ? { env: { HEADSPACE_TEST_CRASH_AT: point } } : { killAfterMs: delay });
      if (run.killed) seen.killed++;
      else {
        seen.finished++;
        expect(run.code, `${label}: ${run.stderr}`).toBe(0);
      }
      if (byPoint) seen.byPoint++;
      await checkAfterCrash(t, id, destination, label);
    }
    // The suite must really crash things, not just watch them finish.
    expect(seen.killed).toBeGreaterThan(TRIALS / 3);
    console.log(
      `crash injection on fake: ${TRIALS} trials, ${seen.killed} killed mid-operation, ${seen.finished} finished first, ${seen.byPoint} at named points`,
    );
  });
});

/** Polls until `check` holds (or `ms` pass). */
async function until(check: () => boolean, ms = 15_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline && !check()) await new Promise((r) => setTimeout(r, 20));
  return check();
}

/** A detached job's supervisor (its recorded owner) as the store has it. */
function supervisorOf(home: string, jobId: string): { pid: number; alive: boolean; state: string } | null {
  const store = SqliteStore.open(home);
  try {
    const job = store.getJob(jobId);
    return job ? { pid: job.owner.pid, alive: isOwnerAlive(job.owner), state: job.state } : null;
  } finally {
    store.close();
  }
}

/**
 * The supervisor of a detached run (#15 item 5) killed with -9 at each of its
 * points (before the launch, while the job runs, after the provider returned
 * but before the record) and at a seeded moment, with and without a stop
 * pending: doctor reports the job, doctor --repair --apply settles it by the
 * run machine's rules (cancelled with a stop pending, else
 * infrastructure_failure, never success), nothing of it runs, and the
 * workspace runs again.
 */
describe(`a detached run's supervisor killed with -9 on fake (seed ${SEED})`, () => {
  const { home, cleanup } = makeHome();
  let engine: EngineWithProviders;
  beforeAll(() => {
    engine = engineWithProviders(home, 'fake');
  });
  afterAll(async () => {
    engine.close();
    await cleanup();
  });
  const rng = seeded(SEED + 15);
  const cases = [
    ...['supervise:before-launch', 'supervise:during-job', 'supervise:after-provider-call'].map((point) => ({ point, delay: null, stop: false })),
    ...[0, 1, 2].map(() => ({ point: null, delay: 50 + Math.floor(rng() * 400), stop: false })),
    { point: null, delay: 100 + Math.floor(rng() * 200), stop: true },
  ];
  for (const [i, c] of cases.entries()) {
    const label = c.point ? `at ${c.point}` : `after ${c.delay} ms${c.stop ? ' with a stop pending' : ''}`;
    it(`settles the job by the run machine's rules when the supervisor dies ${label}`, { timeout: 60_000 }, async () => {
      const id = `s${i}`;
      const jobId = `sj${i}`;
      await engine.create({ workspaceId: id, provider: 'fake' });
      const argv = c.point ? ['echo', 'start', '&&', 'sleep', '0.3', '&&', 'echo', 'end'] : ['echo', 'start', '&&', 'block'];
      const started = await spawnCli(home, ['run', '--detach', '--job-id', jobId, id, ...argv], c.point ? { env: { HEADSPACE_TEST_CRASH_AT: c.point } } : {});
      expect(started.code, started.stderr).toBe(0);
      if (!c.point) {
        await new Promise((r) => setTimeout(r, c.delay!));
        if (c.stop) {
          // The stop's first step, as `stop --apply` takes it: the request is recorded, then the supervisor dies before acting on it.
          const store = SqliteStore.open(home);
          store.requestStop(jobId);
          store.close();
        }
        process.kill(supervisorOf(home, jobId)!.pid, 'SIGKILL');
      }
      expect(await until(() => !supervisorOf(home, jobId)!.alive), `${label}: the supervisor is gone`).toBe(true);
      expect(supervisorOf(home, jobId)!.state, label).toBe('running');
      // wait does not wait out its timeout on a job that can no longer end: it says so, and names the repair.
      const waited = await engine.wait({ jobIds: jobId, timeoutSeconds: 30 });
      expect(waited.status, label).toBe('infrastructure_failure');
      expect(waited.attention.map((a) => a.action?.verb)).toContain('doctor');
      expect(integrityCheck(home)).toBe('ok');
      const report = await engine.doctor({ provider: 'fake' });
      expect(attentionTexts(report).join('\n'), label).toContain(`job ${jobId}`);
      const repaired = await engine.doctor({ provider: 'fake', repair: true, apply: true, verify: true });
      // Judged on this job alone: doctor also sweeps what other homes on this shared host left under /run, which is not this trial's doing.
      expect(
        repaired.warnings.filter((w) => w.includes(jobId) || w.includes(`workspace ${id}`)),
        label,
      ).toEqual([]);
      const store = SqliteStore.open(home);
      try {
        expect(store.getJob(jobId), label).toMatchObject({ state: 'finished', status: c.stop ? 'cancelled' : 'infrastructure_failure' });
        expect(
          store.openIntents().filter((x) => x.jobId === jobId),
          `${label}: its intent is settled`,
        ).toEqual([]);
      } finally {
        store.close();
      }
      const fake = JSON.parse(readFileSync(join(home, 'fake', 'state.json'), 'utf8')) as { workspaces: Record<string, { jobs?: Record<string, unknown> }> };
      expect(Object.keys(fake.workspaces[id]?.jobs ?? {}), `${label}: nothing of the job runs`).toEqual([]);
      expect((await engine.run({ workspaceId: id, argv: ['echo', 'again'] })).status, label).toBe('success');
    });
  }
});

/**
 * One shared supervisor owns every detached job of its home (#15): killed
 * with -9 while two jobs run under it, both are left running under a dead
 * owner, and doctor's repair settles each (infrastructure_failure, its
 * intent settled), none of either runs, and the workspace runs again.
 */
describe(`the shared supervisor killed with -9 on fake`, () => {
  const { home, cleanup } = makeHome();
  let engine: EngineWithProviders;
  beforeAll(() => {
    engine = engineWithProviders(home, 'fake');
  });
  afterAll(async () => {
    engine.close();
    await cleanup();
  });
  it('with 2 jobs in flight settles both', { timeout: 60_000 }, async () => {
    await engine.create({ workspaceId: 'two', provider: 'fake', budget: { concurrency: 2 } });
    const jobs = ['two-a', 'two-b'];
    for (const jobId of jobs) {
      const started = await spawnCli(home, ['run', '--detach', '--job-id', jobId, 'two', 'echo', 'start', '&&', 'block'], {});
      expect(started.code, started.stderr).toBe(0);
    }
    const owners = jobs.map((jobId) => supervisorOf(home, jobId)!);
    expect(owners[0]!.pid, 'one supervisor owns both jobs').toBe(owners[1]!.pid);
    expect(owners.map((o) => o.alive)).toEqual([true, true]);
    process.kill(owners[0]!.pid, 'SIGKILL');
    expect(await until(() => jobs.every((jobId) => !supervisorOf(home, jobId)!.alive))).toBe(true);
    expect(jobs.map((jobId) => supervisorOf(home, jobId)!.state)).toEqual(['running', 'running']);
    const report = attentionTexts(await engine.doctor({ provider: 'fake' })).join('\n');
    for (const jobId of jobs) expect(report).toContain(`job ${jobId}`);
    const repaired = await engine.doctor({ provider: 'fake', repair: true, apply: true, verify: true });
    expect(repaired.warnings.filter((w) => jobs.some((jobId) => w.includes(jobId)) || w.includes('workspace two'))).toEqual([]);
    const store = SqliteStore.open(home);
    try {
      for (const jobId of jobs) {
        expect(store.getJob(jobId), jobId).toMatchObject({ state: 'finished', status: 'infrastructure_failure' });
        expect(
          store.openIntents().filter((x) => x.jobId === jobId),
          `${jobId}: its intent is settled`,
        ).toEqual([]);
      }
    } finally {
      store.close();
    }
    const fake = JSON.parse(readFileSync(join(home, 'fake', 'state.json'), 'utf8')) as { workspaces: Record<string, { jobs?: Record<string, unknown> }> };
    expect(Object.keys(fake.workspaces.two?.jobs ?? {}), 'nothing of either job runs').toEqual([]);
    expect((await engine.run({ workspaceId: 'two', argv: ['echo', 'again'] })).status).toBe('success');
    // A later detached run starts a new shared supervisor over the killed one's socket.
    const again = await spawnCli(home, ['run', '--detach', '--job-id', 'two-c', 'two', 'echo', 'again'], {});
    expect(again.code, again.stderr).toBe(0);
    expect((await engine.wait({ jobIds: 'two-c', timeoutSeconds: 30 })).status).toBe('success');
  });
});

const readiness = await nativeReadiness();

describe.runIf(readiness.ready)(`crash injection on native${readiness.ready ? '' : ` (skipped: ${readiness.reason})`}`, () => {
  // makeHome() is 0700, so the native provider bind-mounts files dirs under /run: mounts are exercised too.
  const { home, cleanup } = makeHome();
  const env = { HEADSPACE_PROVIDER: 'native' };
  let engine: EngineWithProviders;
  beforeAll(() => {
    engine = engineWithProviders(home, 'native');
  });
  afterAll(async () => {
    const store = SqliteStore.open(home);
    for (const ws of store.listWorkspaces()) await engine.destroy({ workspaceId: ws.id, force: true }).catch(() => undefined);
    store.close();
    engine.close();
    await cleanup();
  });

  /** What of a native workspace must be gone once nothing runs in it / once it is destroyed. */
  async function nativeDebris(id: string): Promise<{ procs: string[]; cgroups: boolean; mount: boolean; folder: boolean; marker: boolean }> {
    // A destroyed workspace's storage is reclaimed in the background (#20): a reclaim under way is no debris, so let it end.
    const folder = join(home, 'native', 'workspaces', id);
    for (let i = 0; i < 2000 && (existsSync(join(folder, 'reclaim.json')) || reclaimShellRunning(folder)); i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    const provider = await engine.provider('native');
    const leftovers = await provider.leftovers!();
    const mine = leftovers.filter((l) => l.workspaceId === id);
    const { createHash } = await import('node:crypto');
    const tag = createHash('sha256').update(join(home, 'native')).digest('hex').slice(0, 10);
    const procsFile = `/sys/fs/cgroup/pids/headspace/${tag}-${id}/cgroup.procs`;
    const procs = existsSync(procsFile)
      ? readFileSync(procsFile, 'utf8')
          .split('\n')
          .filter((l) => l !== '')
      : [];
    return {
      procs,
      cgroups: existsSync(`/sys/fs/cgroup/pids/headspace/${tag}-${id}`),
      mount: existsSync(`/run/headspace-native/${tag}/ws/${id}`),
      folder: existsSync(join(home, 'native', 'workspaces', id)),
      marker: mine.some((l) => l.kind === 'file') || existsSync(join(home, 'native', 'workspaces', id, 'job.json')),
    };
  }

  it('a run killed mid-job leaves nothing running once repaired, and the workspace runs again', { timeout: 90_000 }, async () => {
    await engine.create({ workspaceId: 'nrun', provider: 'native' });
    const store = SqliteStore.open(home);
    const run = await spawnCli(home, ['run', 'nrun', 'sh', '-c', 'sleep 60 & sleep 60'], {
      env,
      killWhen: () => store.runningJob('nrun') !== undefined && existsSync(join(home, 'native', 'workspaces', 'nrun', 'job.json')),
    });
    await new Promise((r) => setTimeout(r, 300)); // let the job's processes start
    expect(run.killed).toBe(true);
    expect(integrityCheck(home)).toBe('ok');
    const job = store.runningJob('nrun');
    expect(job).toBeDefined();
    const report = await engine.doctor({ provider: 'native' });
    expect(attentionTexts(report).join('\n')).toContain(`job ${job!.id}`);
    const repaired = await engine.doctor({ provider: 'native', repair: true, apply: true, verify: true });
    expect(repaired.status, repaired.warnings.join('; ')).toBe('success');
    expect(store.getJob(job!.id)).toMatchObject({ state: 'finished', status: 'infrastructure_failure' });
    const debris = await nativeDebris('nrun');
    expect(debris.procs, 'no process of the killed job remains in the workspace cgroup').toEqual([]);
    expect(debris.marker).toBe(false);
    expect((await engine.run({ workspaceId: 'nrun', argv: ['echo', 'again'] })).status).toBe('success');
    expect((await engine.destroy({ workspaceId: 'nrun' })).status).toBe('success');
    expect(await nativeDebris('nrun')).toEqual({ procs: [], cgroups: false, mount: false, folder: false, marker: false });
    store.close();
  });

  it("a detached run's supervisor killed mid-job leaves nothing running once repaired", { timeout: 90_000 }, async () => {
    await engine.create({ workspaceId: 'nsup', provider: 'native', profile: 'host' });
    const started = await spawnCli(home, ['run', '--detach', '--job-id', 'nsup-job', 'nsup', 'sh', '-c', 'echo start; sleep 60 & sleep 60'], {
      env: { ...env, HEADSPACE_TEST_CRASH_AT: 'supervise:during-job' },
    });
    expect(started.code, started.stderr).toBe(0);
    expect(await until(() => !supervisorOf(home, 'nsup-job')!.alive)).toBe(true);
    const report = await engine.doctor({ provider: 'native' });
    expect(attentionTexts(report).join('\n')).toContain('job nsup-job');
    const repaired = await engine.doctor({ provider: 'native', repair: true, apply: true, verify: true });
    // Judged on this job alone: doctor also sweeps runtime folders other homes on this shared host left under /run.
    expect(repaired.warnings.filter((w) => w.includes('nsup'))).toEqual([]);
    const store = SqliteStore.open(home);
    expect(store.getJob('nsup-job')).toMatchObject({ state: 'finished', status: 'infrastructure_failure' });
    store.close();
    expect((await nativeDebris('nsup')).procs, 'no process of the job remains in the workspace cgroup').toEqual([]);
    expect((await engine.run({ workspaceId: 'nsup', argv: ['echo', 'again'] })).status).toBe('success');
    expect((await engine.destroy({ workspaceId: 'nsup' })).status).toBe('success');
    expect(await nativeDebris('nsup')).toEqual({ procs: [], cgroups: false, mount: false, folder: false, marker: false });
  });

  it('a create killed after the provider made the workspace is repaired to ready', { timeout: 60_000 }, async () => {
    const run = await spawnCli(home, ['create', '--workspace-id', 'ncreate'], { env: { ...env, HEADSPACE_TEST_CRASH_AT: 'create:after-provider-call' } });
    expect(run.killed).toBe(true);
    const repaired = await engine.doctor({ provider: 'native', repair: true, apply: true, verify: true });
    expect(repaired.key_findings.join('\n')).toContain('workspace ncreate recorded ready');
    expect((await engine.run({ workspaceId: 'ncreate', argv: ['echo', 'ok'] })).status).toBe('success');
    await engine.destroy({ workspaceId: 'ncreate' });
    expect(await nativeDebris('ncreate')).toEqual({ procs: [], cgroups: false, mount: false, folder: false, marker: false });
  });

  it('a destroy killed after the provider removed the workspace is a judgement call, and destroy finishes it cleanly', { timeout: 60_000 }, async () => {
    await engine.create({ workspaceId: 'ndestroy', provider: 'native' });
    await engine.run({ workspaceId: 'ndestroy', argv: ['echo', 'x'] });
    const run = await spawnCli(home, ['destroy', 'ndestroy'], { env: { ...env, HEADSPACE_TEST_CRASH_AT: 'remove:after-provider-call' } });
    expect(run.killed).toBe(true);
    const repaired = await engine.doctor({ provider: 'native', repair: true, apply: true, verify: true });
    expect(attentionTexts(repaired).join('\n')).toMatch(/judgement call, skipped: settle intent #\d+ \(remove on workspace ndestroy\)/);
    expect((await engine.destroy({ workspaceId: 'ndestroy' })).status).toBe('success');
    expect(await nativeDebris('ndestroy')).toEqual({ procs: [], cgroups: false, mount: false, folder: false, marker: false });
  });

  it('an export killed before publishing leaves no partial file once repaired', { timeout: 60_000 }, async () => {
    await engine.create({ workspaceId: 'nexport', provider: 'native' });
    await engine.run({
      workspaceId: 'nexport',
      argv: ['sh', '-c', 'head -c 1048576 /dev/urandom > out.bin'],
      declares: [{ name: 'out.bin', purpose: 'crash test' }],
    });
    const outDir = join(home, 'nout');
    mkdirSync(outDir);
    const run = await spawnCli(home, ['export', 'nexport', 'out.bin', '--to', join(outDir, 'out.bin')], {
      env: { ...env, HEADSPACE_TEST_CRASH_AT: 'export:before-publish' },
    });
    expect(run.killed).toBe(true);
    expect(partialFiles(outDir)).toHaveLength(1);
    const repaired = await engine.doctor({ provider: 'native', repair: true, apply: true, verify: true });
    expect(repaired.status).toBe('success');
    expect(partialFiles(outDir)).toEqual([]);
    expect(existsSync(join(outDir, 'out.bin'))).toBe(false);
    expect((await engine.export({ workspaceId: 'nexport', name: 'out.bin', to: join(outDir, 'out.bin') })).status).toBe('success');
    await engine.destroy({ workspaceId: 'nexport' });
  });
});
