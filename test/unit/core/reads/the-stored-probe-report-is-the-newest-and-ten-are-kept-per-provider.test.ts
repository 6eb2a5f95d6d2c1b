/**
 * The stored `probe --all` reports (#21): lastProbeReport is the newest one
 * recorded (of any provider, or of the one asked), null before any; only the
 * newest ten per provider are kept, so the table never grows with every probe.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { recordReport } from '../../../helpers/probe-report.js';

let t: TestEngine;
beforeEach(() => {
  t = makeTestEngine();
});
afterEach(() => t.cleanup());

describe('stored probe reports', () => {
  it('reads the newest, per provider or of any, and keeps ten per provider', async () => {
    expect(await t.engine.lastProbeReport()).toBeNull();
    for (let i = 1; i <= 12; i++) recordReport(t.home, { provider: 'native', outcome: `native run ${i}`, findings: [] });
    recordReport(t.home, { provider: 'docker', outcome: 'docker run 1', findings: ['contained: pid-namespace'] });

    expect((await t.engine.lastProbeReport())?.report.outcome_summary).toBe('docker run 1');
    const native = await t.engine.lastProbeReport({ provider: 'native' });
    expect(native).toMatchObject({ provider: 'native', status: 'success', headspace_version: '0.0.0-test' });
    expect(native!.report.outcome_summary).toBe('native run 12');
    expect(await t.engine.lastProbeReport({ provider: 'swarm' })).toBeNull();

    const db = new Database(join(t.home, 'state.db'), { readonly: true });
    try {
      expect(db.prepare('SELECT provider, COUNT(*) AS n FROM probe_reports GROUP BY provider ORDER BY provider').all()).toEqual([
        { provider: 'docker', n: 1 },
        { provider: 'native', n: 10 },
      ]);
    } finally {
      db.close();
    }
  });
});
