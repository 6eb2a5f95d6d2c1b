/** The pure rules settle decides with: which paths two change lists both touch, and what a deny-paths glob matches. */
import { describe, expect, it } from 'vitest';
import { globMatches } from '../../../../src/core/snapshots/review-gate.js';
import type { TreeChange } from '../../../../src/core/snapshots/snapshot-ops.js';
import { overlapping } from '../../../../src/core/verbs/settle.js';
import { filesMadeEmptyDirectories } from '../../../../src/core/snapshots/apply-output.js';

const change = (path: string, kind: TreeChange['kind'], type: TreeChange['type'] = 'file'): TreeChange => ({
  path,
  kind,
  type,
  size: 0,
  sha256: null,
  mode: null,
  previousSha256: null,
});

describe('overlapping', () => {
  it('names a path both sides changed, and a write under a directory the other side deleted', () => {
    expect(overlapping([change('a', 'modify')], [change('a', 'modify'), change('b', 'create')])).toEqual(['a']);
    expect(overlapping([change('dir', 'delete', 'directory')], [change('dir/x', 'create')])).toEqual(['dir/x']);
    expect(overlapping([change('dir/x', 'modify')], [change('dir', 'delete', 'directory')])).toEqual(['dir']);
  });

  it('names a directory one side made a file when the other wrote under it (settle would remove that write)', () => {
    expect(overlapping([change('d/new.txt', 'create')], [change('d', 'modify', 'file')])).toEqual(['d']);
    expect(overlapping([change('d', 'modify', 'file')], [change('d/new.txt', 'create')])).toEqual(['d/new.txt']);
  });

  it('lets both sides leave a path exactly alike (same bytes and mode, or both deleted), not when the bytes or mode differ', () => {
    const wrote = (path: string, sha: string, mode = 0o644): TreeChange => ({ ...change(path, 'modify'), sha256: sha.repeat(64), mode });
    expect(overlapping([wrote('note.txt', 'a')], [wrote('note.txt', 'a')])).toEqual([]);
    expect(overlapping([change('gone', 'delete')], [change('gone', 'delete')])).toEqual([]);
    expect(overlapping([wrote('note.txt', 'a')], [wrote('note.txt', 'b')])).toEqual(['note.txt']);
    expect(overlapping([wrote('run.sh', 'a', 0o755)], [wrote('run.sh', 'a')])).toEqual(['run.sh']);
    expect(overlapping([change('x', 'delete')], [wrote('x', 'a')])).toEqual(['x']);
  });

  it('lets both sides create the same directory and different files in it', () => {
    expect(
      overlapping([change('out', 'create', 'directory'), change('out/a', 'create')], [change('out', 'create', 'directory'), change('out/b', 'create')]),
    ).toEqual([]);
  });
});

describe('filesMadeEmptyDirectories', () => {
  it('names a file made a directory with no file under it, not a directory whose mode changed, nor one that got files', () => {
    const madeDir = (path: string): TreeChange => ({ ...change(path, 'modify', 'directory'), previousSha256: 'a'.repeat(64) });
    expect(filesMadeEmptyDirectories([madeDir('f'), change('m', 'modify', 'directory'), madeDir('g'), change('g/x', 'create')]).map((c) => c.path)).toEqual([
      'f',
    ]);
  });
});

describe('globMatches', () => {
  it('reads * within a name, ** across names, and a bare name at any depth', () => {
    expect(globMatches('*.pem', 'keys/server.pem')).toBe(true);
    expect(globMatches('*.pem', 'server.pem.txt')).toBe(false);
    expect(globMatches('.git/**', '.git/config')).toBe(true);
    expect(globMatches('.git/**', '.git')).toBe(true);
    expect(globMatches('.git/**', 'a/.git/config')).toBe(false);
    expect(globMatches('.env', 'app/.env')).toBe(true);
    expect(globMatches('.env', '.envrc')).toBe(false);
    expect(globMatches('src/*.ts', 'src/a/b.ts')).toBe(false);
  });
});
