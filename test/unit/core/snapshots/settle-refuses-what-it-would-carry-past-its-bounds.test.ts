/**
 * settle carries each file of an output by reading it whole into the
 * engine's memory, and writes it whole into the parent: a fork's sparse file
 * of a few GiB (no blocks) took the engine's memory past 4 GiB and then
 * failed as an infrastructure fault, and its holes landed as zeros in the
 * parent. Before anything changes, settle now refuses a file past
 * SETTLE_FILE_MAX_BYTES and files that together read as more than the
 * parent's storage budget.
 */
import { describe, expect, it } from 'vitest';
import { SETTLE_FILE_MAX_BYTES, carryRefusal } from '../../../../src/core/snapshots/apply-output.js';
import type { TreeChange } from '../../../../src/core/snapshots/snapshot-ops.js';

const file = (path: string, size: number, kind: TreeChange['kind'] = 'create'): TreeChange => ({
  path,
  kind,
  type: 'file',
  size,
  sha256: kind === 'delete' ? null : 'a'.repeat(64),
  mode: kind === 'delete' ? null : 0o644,
  previousSha256: null,
});
const GiB = 1024 ** 3;

describe('what settle would carry', () => {
  it('is refused when one file reads as more than the per-file bound, naming it', () => {
    expect(carryRefusal([file('small.txt', 10), file('big.bin', SETTLE_FILE_MAX_BYTES + 1)], 8 * GiB)).toContain('big.bin reads as');
  });

  it('is refused when the files together read as more than the parent storage budget', () => {
    const files = Array.from({ length: 6 }, (_, i) => file(`part-${i}.bin`, 200 * 1024 * 1024));
    expect(carryRefusal(files, GiB)).toContain("more than the parent's storage budget");
  });

  it('passes files within both bounds, and counts neither deletions nor directories', () => {
    const changes: TreeChange[] = [
      file('a.bin', SETTLE_FILE_MAX_BYTES),
      file('gone.bin', 5 * GiB, 'delete'),
      { ...file('dir', 0), type: 'directory', sha256: null, size: 9 * GiB },
    ];
    expect(carryRefusal(changes, GiB)).toBeNull();
  });
});
