/**
 * deep-tree: a job nests directories past PATH_MAX and the host lists and
 * reads them. Walking it, or refusing it as the workspace's content (a user
 * error), holds; failing as infrastructure (exit 7, ENAMETOOLONG) escapes.
 */
import { describe, expect, it } from 'vitest';
import { deepTree } from '../../../../src/core/probe/scenarios-host-side.js';
import { job } from './facts.js';

const made = 'depth: 1500\nprobe-done\n';

describe('deep-tree', () => {
  it('is contained when the host walked the tree and read the bottom file', () => {
    const verdict = deepTree.judge(job(made), { list: { ok: true, entries: 1502 }, read: { bytes: 6 } });
    expect(verdict).toMatchObject({ verdict: 'contained', evidence: expect.stringContaining('walked 1502 entries') });
  });

  it('is contained when the tree is refused as content with a user error', () => {
    const verdict = deepTree.judge(job(made), { list: { ok: false, refused: 'BAD_PATH', category: 'user_error' }, read: { refused: 'BAD_PATH' } });
    expect(verdict.verdict).toBe('contained');
  });

  it('escapes when listing failed as a provider failure', () => {
    const verdict = deepTree.judge(job(made), { list: { ok: false, refused: 'PROVIDER_FAILURE', category: 'infrastructure_failure' }, read: { bytes: 6 } });
    expect(verdict).toMatchObject({ verdict: 'escaped', evidence: expect.stringContaining('ls-files') });
  });

  it('escapes when the read failed with a foreign ENAMETOOLONG error', () => {
    const verdict = deepTree.judge(job(made), { list: { ok: true, entries: 1502 }, read: { refused: "ENAMETOOLONG: name too long, open '/x'" } });
    expect(verdict).toMatchObject({ verdict: 'escaped', evidence: expect.stringContaining('read:') });
  });

  it('is skipped when the job could not build the tree', () => {
    expect(deepTree.judge(job('No space left\n', 'failure', 1), { list: { ok: true, entries: 0 }, read: { refused: 'FILE_NOT_FOUND' } }).verdict).toBe(
      'skipped',
    );
  });
});
