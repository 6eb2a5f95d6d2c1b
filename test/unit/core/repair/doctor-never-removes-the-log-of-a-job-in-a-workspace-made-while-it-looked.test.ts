/**
 * doctor read the workspace list first and the jobs folder later, so the log
 * of a job in a workspace created in between counted as stray (its workspace
 * unknown), and --repair --apply deleted a live job's output (red team: 3 of
 * 15 jobs under a doctor loop). A log is now judged against the store as it
 * is when the log is looked at.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { EngineWithProviders } from '../../../../src/core/engine.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

it('keeps the log of a job whose workspace was created while doctor gathered its facts', async () => {
  t = makeTestEngine();
  await t.engine.create({ workspaceId: 'w' });
  const provider = await (t.engine as EngineWithProviders).provider('fake');
  let late = '';
  // Runs after doctor has listed the workspaces and before it reads the jobs folder.
  provider.leftovers = async () => {
    provider.leftovers = undefined;
    await t.engine.create({ workspaceId: 'late' });
    late = (await t.engine.run({ workspaceId: 'late', argv: ['echo', 'kept output'] })).provenance.job_id!;
    return [];
  };
  const report = await t.engine.doctor({ repair: true, apply: true });
  expect(late).not.toBe('');
  expect(JSON.stringify(report)).not.toContain(`${late}.log`);
  expect(existsSync(join(t.home, 'jobs', `${late}.log`))).toBe(true);
  expect(JSON.stringify(await t.engine.logs({ jobId: late }))).toContain('kept output');
});

it('still removes the log of a job the store does not know', async () => {
  t = makeTestEngine();
  await t.engine.create({ workspaceId: 'w' });
  await t.engine.run({ workspaceId: 'w', argv: ['echo', 'x'] });
  const stray = join(t.home, 'jobs', 'job-0000000000ff.log');
  writeFileSync(stray, 'left by a crash\n');
  const report = await t.engine.doctor({ repair: true, apply: true });
  expect(JSON.stringify(report)).toContain('job-0000000000ff.log');
  expect(existsSync(stray)).toBe(false);
});
