/**
 * A batch job with `fork:` (#16) needs the snapshots capability: on a
 * provider without it the whole batch is refused with exit 3 naming the
 * capability, before any group, fork or job is recorded.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exitCodeOf } from '../../../../src/core/errors.js';
import { engineWithoutSnapshots, refusal } from '../../../helpers/snapshots.js';

const home = mkdtempSync(join(tmpdir(), 'hs-batch-nosnap-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('a batch fork without snapshots', () => {
  it('is refused with exit 3 before anything is recorded', async () => {
    const engine = engineWithoutSnapshots(home);
    await engine.create({ workspaceId: 'w' });
    const error = await refusal(engine.batch({ strategy: 'race', jobs: [{ fork: 'w', command: ['true'] }] }));
    expect(error.code).toBe('POLICY_DENIED');
    expect(exitCodeOf(error.category)).toBe(3);
    expect(error.message).toContain('snapshots capability');
    const ls = await engine.ls({});
    expect(ls.key_findings.filter((f) => typeof f === 'object' && f.kind === 'workspace')).toHaveLength(1);
    const seen = await engine.inspect({ handle: 'w' });
    expect(JSON.stringify(seen.key_findings)).not.toContain('"kind":"job"');
    engine.close();
  });
});
