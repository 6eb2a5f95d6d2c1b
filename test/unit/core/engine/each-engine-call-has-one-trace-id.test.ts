/**
 * Every engine call gets one trace id: its result carries it as
 * provenance.trace_id, and every journal row (intent) the call wrote carries
 * the same id — including those of verbs it runs inside itself (gc destroying
 * an expired workspace). Two calls never share one.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

function intentTraces(home: string): Array<{ op: string; trace_id: string | null }> {
  const db = new Database(join(home, 'state.db'), { readonly: true });
  try {
    return db.prepare('SELECT op, trace_id FROM intents ORDER BY id').all() as Array<{ op: string; trace_id: string | null }>;
  } finally {
    db.close();
  }
}

describe('trace ids', () => {
  it('name each call in its result and on its journal rows', async () => {
    t = makeTestEngine();
    const created = await t.engine.create({ workspaceId: 'traced', ttlSeconds: 60 });
    const ran = await t.engine.run({ workspaceId: 'traced', argv: ['echo', 'hi'] });
    const listed = await t.engine.ls();
    const traces = [created, ran, listed].map((p) => p.provenance.trace_id);
    for (const trace of traces) expect(trace).toMatch(/^trace-/);
    expect(new Set(traces).size).toBe(3);
    t.clock.advance(61_000);
    const gc = await t.engine.gc();
    expect(intentTraces(t.home)).toEqual([
      { op: 'create', trace_id: created.provenance.trace_id },
      { op: 'run', trace_id: ran.provenance.trace_id },
      { op: 'remove', trace_id: gc.provenance.trace_id },
    ]);
  });
});
