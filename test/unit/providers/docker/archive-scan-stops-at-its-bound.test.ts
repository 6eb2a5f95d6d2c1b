/**
 * A header-only read of an archive (a listing) is charged the data the engine
 * streams for each entry, at its apparent size, and refused before the entry
 * that passes the bound (#19 item 3: a 20 GiB sparse file streamed forever).
 */
import { expect, it } from 'vitest';
import { EngineError } from '../../../../src/core/errors.js';
import { archiveScanBound } from '../../../../src/providers/docker/workspace-files.js';
import type { TarHeader } from '../../../../src/providers/docker/tar.js';

const header = (name: string, size: number, type: TarHeader['type'] = 'file'): TarHeader => ({ name: Buffer.from(name), type, size, mode: 0o644 });

it('lets entries through until the streamed bytes pass the bound, then names the file and the remedy', () => {
  const charge = archiveScanBound([Buffer.from('src')], 4096);
  charge(header('src', 0, 'directory'));
  charge(header('src/a', 1000));
  charge(header('src/b', 1000));
  let refused: unknown;
  try {
    charge(header('src/d/sparse', 20 * 1024 ** 3));
  } catch (error) {
    refused = error;
  }
  expect(refused).toBeInstanceOf(EngineError);
  const error = refused as EngineError;
  expect(error.code).toBe('POLICY_DENIED');
  expect(error.message).toContain("listing 'src'");
  expect(error.message).toContain("'src/d/sparse' reads as 21474836480 bytes");
  expect(error.message).toContain('sparse file');
  expect(error.hint).toContain('list a narrower path');
});

it('counts headers too, so many empty files also stop at the bound', () => {
  const charge = archiveScanBound([], 512 * 3);
  charge(header('workspace/a', 0));
  charge(header('workspace/b', 0));
  charge(header('workspace/c', 0));
  expect(() => charge(header('workspace/d', 0))).toThrow(/listing '\.'.*'d' reads as 0 bytes/);
});
