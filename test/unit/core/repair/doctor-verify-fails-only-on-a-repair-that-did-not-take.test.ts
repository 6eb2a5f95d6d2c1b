/**
 * doctor --repair --apply --verify plans again after applying: a safe repair
 * it made that is planned again did not take, and fails the run (exit 7); a
 * safe repair that was not made before is new since (another process's work
 * beside doctor) and is said, not counted a failure. Counted as failures,
 * they made doctor --verify exit 7 beside live creates and destroys (red
 * team: 15 of 46 runs).
 */
import { afterEach, expect, it } from 'vitest';
import type { EngineWithProviders } from '../../../../src/core/engine.js';
import type { Leftover } from '../../../../src/core/provider.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

const stray = (target: string): Leftover => ({ kind: 'file', workspaceId: null, target, detail: `a stray file ${target}` });

it('reports a leftover that appeared after the repair as new, and succeeds', async () => {
  t = makeTestEngine();
  const provider = await (t.engine as EngineWithProviders).provider('fake');
  let calls = 0;
  provider.leftovers = async () => (++calls === 1 ? [] : [stray('/nowhere/new')]);
  provider.removeLeftover = async () => true;
  const report = await t.engine.doctor({ repair: true, apply: true, verify: true });
  expect(report.status).toBe('success');
  expect(report.key_findings.join('\n')).toContain('verify: new since the repair (another process may be at work)');
  expect(report.outcome_summary).toContain('verify found nothing left to repair (and 1 new since)');
});

it('fails when a repair it made is still needed', async () => {
  t = makeTestEngine();
  const provider = await (t.engine as EngineWithProviders).provider('fake');
  provider.leftovers = async () => [stray('/nowhere/stuck')];
  provider.removeLeftover = async () => true;
  const report = await t.engine.doctor({ repair: true, apply: true, verify: true });
  expect(report.status).toBe('infrastructure_failure');
  expect(report.warnings.join('\n')).toContain('verify: still needs repair after it was applied');
});
