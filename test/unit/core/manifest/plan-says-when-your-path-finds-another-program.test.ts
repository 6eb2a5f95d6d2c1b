/**
 * plan names where the profile finds a setup program; when the caller's own
 * PATH finds another one first (a pyenv python3 with pytest, where jobs run
 * /usr/bin/python3 without it), the check says so, so a later "No module
 * named pytest" is not a surprise (a new user). Nothing is said when the two
 * agree, or when the profile's program is no host file (the fake's).
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { callerPathNote, firstOnPath } from '../../../../src/core/manifest/caller-path.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function tool(where: string): string {
  mkdirSync(where, { recursive: true });
  const file = join(where, 'tool');
  writeFileSync(file, '#!/bin/sh\n');
  chmodSync(file, 0o755);
  return file;
}

describe("plan's note on the caller's PATH", () => {
  it('names the program the caller finds first when the profile runs another', () => {
    dir = mkdtempSync(join(tmpdir(), 'hs-caller-path-'));
    const mine = tool(join(dir, 'shims'));
    const system = tool(join(dir, 'usr-bin'));
    const path = `${join(dir, 'missing')}:${join(dir, 'shims')}:${join(dir, 'usr-bin')}`;
    expect(firstOnPath('tool', path)).toBe(mine);
    expect(callerPathNote('tool', system, path)).toBe(` — not the ${mine} your PATH finds first: jobs run ${system}, with what is installed for it`);
  });

  it('says nothing when they agree, when the caller finds none, or when the profile’s program is no host file', () => {
    dir = mkdtempSync(join(tmpdir(), 'hs-caller-path-'));
    const only = tool(join(dir, 'bin'));
    writeFileSync(join(dir, 'bin', 'plain'), 'not executable');
    expect(callerPathNote('tool', only, join(dir, 'bin'))).toBe('');
    expect(callerPathNote('plain', only, join(dir, 'bin'))).toBe('');
    expect(callerPathNote('tool', '/fake/bin/tool', join(dir, 'bin'))).toBe('');
  });
});
