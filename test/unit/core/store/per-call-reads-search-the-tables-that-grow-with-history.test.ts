/**
 * A home lives for months: every create, run, put and destroy adds rows that stay (intents, jobs, events, receipts,
 * checkpoints). A statement that scans such a table makes every call slower as the home ages, unseen in tests whose
 * homes are new. Two did (#20, session 17): every run's receipt scanned all the home's intents for its workspace's
 * restores and settles, and a workspace's outputs were found by scanning every output. So every statement the verbs
 * below prepare is asked for its query plan, and a SCAN of a table is allowed only where it is named here with why.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type Database from 'better-sqlite3';
import { makeTestEngine } from '../../../helpers/engine.js';
import { idAfter } from '../../../helpers/snapshots.js';
import { subscriptionIdOf } from '../../../helpers/events.js';

const require = createRequire(import.meta.url);
const Sqlite = require('better-sqlite3') as typeof Database;

/** Scans that do not grow with the home's history, each as its plan step reads (an aliased table by its alias), with why. */
const ALLOWED_SCANS: Record<string, string> = {
  // Every job's end is matched against every subscription: there are as many as consumers subscribed, not events.
  'SCAN s': 'the event subscriptions, one per consumer',
  // ls and status list the live workspaces through the job-slot index, which is partial: it holds live ones alone.
  'SCAN workspaces USING INDEX workspaces_live_job_slot': 'the live workspaces, never the destroyed',
};

const prepared = new Set<string>();
const original = Sqlite.prototype.prepare;
Sqlite.prototype.prepare = function (this: Database.Database, source: string) {
  prepared.add(source);
  return original.call(this, source);
} as typeof original;
const t = makeTestEngine({ realClock: true });
afterAll(() => {
  Sqlite.prototype.prepare = original;
  t.cleanup();
});

/** A statement's query plan, its parameters bound to null (a plan does not depend on the values). */
function planOf(db: Database.Database, source: string): string[] {
  const statement = db.prepare(`EXPLAIN QUERY PLAN ${source}`);
  const named = [...new Set([...source.matchAll(/[@:$]([A-Za-z_]\w*)/g)].map((m) => m[1]!))];
  const args = named.length > 0 ? [Object.fromEntries(named.map((n) => [n, null]))] : new Array<null>((source.match(/\?/g) ?? []).length).fill(null);
  return (statement.all(...args) as Array<{ detail: string }>).map((row) => row.detail);
}

describe('the statements of the everyday verbs', () => {
  it('search every table that grows with history, scanning only where this file says why', async () => {
    const { engine, home } = t;
    const source = join(home, 'in');
    mkdirSync(source);
    writeFileSync(join(source, 'a.txt'), 'a\n');
    const subscription = subscriptionIdOf(await engine.subscribeEvents({ all: true }));
    for (let i = 0; i < 2; i++) {
      const id = `w${i}`;
      await engine.create({ workspaceId: id });
      await engine.put({ workspaceId: id, hostPath: source, destination: 'in' });
      const ran = await engine.run({ workspaceId: id, argv: ['write', 'out.txt', 'hello'] });
      const job = ran.provenance.job_id!;
      await engine.inspect({ handle: id });
      await engine.inspect({ handle: job });
      await engine.logs({ jobId: job, tail: 5 });
      await engine.receipt({ jobId: job });
      await engine.listFiles({ workspaceId: id });
      await engine.declare({ workspaceId: id, name: 'out.txt', purpose: 'the answer' });
      await engine.export({ workspaceId: id, name: 'out.txt', to: join(home, `out-${i}.txt`) });
      await engine.claimEvents({ subscriptionId: subscription, max: 100 });
      await engine.status({});
      await engine.ls({});
      const checkpoint = idAfter((await engine.checkpoint({ workspaceId: id })).key_findings, 'checkpoint');
      await engine.run({ workspaceId: id, argv: ['write', 'out.txt', 'again'] });
      await engine.diff({ workspaceId: id });
      await engine.restore({ workspaceId: id, checkpointId: checkpoint });
      await engine.run({ workspaceId: id, argv: ['echo', 'after the restore'] });
      await engine.fork({ workspaceId: id, workspaceIds: [`${id}-f`] });
      await engine.run({ workspaceId: `${id}-f`, argv: ['write', 'in/a.txt', 'changed'] });
      const output = idAfter((await engine.seal({ workspaceId: `${id}-f` })).key_findings, 'output');
      // A discard destroys the fork too.
      await engine.settle({ outputId: output, decision: 'discard' });
      await engine.destroy({ workspaceId: id });
    }
    Sqlite.prototype.prepare = original;
    const db = new Sqlite(join(home, 'state.db'), { readonly: true });
    try {
      const scans: string[] = [];
      for (const statement of prepared) {
        if (/^\s*(PRAGMA|BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|CREATE|DROP|ALTER)\b/i.test(statement)) continue;
        for (const step of planOf(db, statement)) {
          if (!step.startsWith('SCAN ') || step.startsWith('SCAN CONSTANT ROW')) continue;
          if (ALLOWED_SCANS[step.trim()] === undefined) scans.push(`${step}: ${statement.replace(/\s+/g, ' ')}`);
        }
      }
      expect(prepared.size).toBeGreaterThan(30);
      expect(scans).toEqual([]);
    } finally {
      db.close();
    }
  });
});
