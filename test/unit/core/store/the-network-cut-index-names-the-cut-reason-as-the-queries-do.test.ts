/**
 * The partial index on a job's network cut (a probe of the secret redactor)
 * names the cut's reason as a literal written out in its migration, which
 * never changes once shipped. The queries name NETWORK_CUT_REASON: were the
 * reason reworded, homes made before would keep an index, and cut rows, no
 * query names, and the refusal of secrets after a probe would silently
 * lapse. So the constant is held to the migration's literal, and SQLite is
 * shown to use the index for the refusal's query.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NETWORK_CUT_REASON } from '../../../../src/core/network/egress-ledger.js';
import { MIGRATIONS, NETWORK_CUT_SQL } from '../../../../src/core/store/migrations.js';
import { SqliteStore } from '../../../../src/core/store/sqlite-store.js';

describe('the network cut index', () => {
  it("names the same literal as NETWORK_CUT_REASON, and the store's query uses it", () => {
    const migration = MIGRATIONS.find((m) => m.includes('network_decisions_cut'))!;
    expect(migration).toContain(`WHERE reason = ${NETWORK_CUT_SQL};`);
    expect(NETWORK_CUT_SQL).toBe(`'${NETWORK_CUT_REASON.split("'").join("''")}'`);
    const home = mkdtempSync(join(tmpdir(), 'hs-cut-index-'));
    const store = SqliteStore.open(home);
    try {
      const plan = store
        .statement(`EXPLAIN QUERY PLAN SELECT job_id FROM network_decisions WHERE reason = ${NETWORK_CUT_SQL} AND workspace_id IN (?, ?)`)
        .all('a', 'b') as Array<{ detail: string }>;
      expect(plan.map((p) => p.detail).join('\n')).toContain('network_decisions_cut');
    } finally {
      store.close();
      rmSync(home, { recursive: true, force: true });
    }
  });
});
