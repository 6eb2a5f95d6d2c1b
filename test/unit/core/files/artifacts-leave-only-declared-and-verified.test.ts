/**
 * Only declared artifacts leave a workspace, by export: digest-verified,
 * published by atomic rename, the destination holding the whole file or
 * nothing. destroy refuses while declared artifacts are unexported; --force
 * discards them by name; the report lists the exports that survive.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { findingTexts, attentionTexts } from '../../../helpers/result-packages.js';

let t: TestEngine;
let out: string;
beforeEach(async () => {
  t = makeTestEngine();
  out = mkdtempSync(join(tmpdir(), 'hs-export-'));
  await t.engine.create({ workspaceId: 'arts' });
  await t.engine.run({
    workspaceId: 'arts',
    argv: ['write', 'report.json', '{"pi":3.1415926536}'],
    declares: [{ name: 'report.json', purpose: 'pi to 10 digits' }],
  });
});
afterEach(() => {
  t.cleanup();
  rmSync(out, { recursive: true, force: true });
});

const digest = createHash('sha256').update('{"pi":3.1415926536}').digest('hex');

describe('artifacts', () => {
  it('flags a declared, unexported artifact in attention', async () => {
    const pkg = await t.engine.inspect({ handle: 'arts' });
    expect(attentionTexts(pkg).join('\n')).toContain("artifact 'report.json' is declared but not exported (pi to 10 digits)");
  });

  it('exports a declared artifact with its verified digest', async () => {
    const pkg = await t.engine.export({ workspaceId: 'arts', name: 'report.json', to: join(out, 'report.json'), expectSha256: digest });
    expect(pkg.key_findings[0]).toBe(`19 bytes verified as sha256:${digest}`);
    expect(readFileSync(join(out, 'report.json'), 'utf8')).toBe('{"pi":3.1415926536}');
    expect(pkg.artifacts).toEqual([
      {
        name: 'report.json',
        purpose: 'pi to 10 digits',
        media_type: 'application/json',
        digest: `sha256:${digest}`,
        size_bytes: 19,
        reference: join(out, 'report.json'),
      },
    ]);
    expect(pkg.attention).toEqual([]);
  });

  it('refuses an undeclared name', async () => {
    await t.engine.run({ workspaceId: 'arts', argv: ['write', 'other.txt', 'x'] });
    await expect(t.engine.export({ workspaceId: 'arts', name: 'other.txt', to: join(out, 'o.txt') })).rejects.toMatchObject({
      message: expect.stringContaining('never declared'),
    });
    expect(readdirSync(out)).toEqual([]);
  });

  it('leaves nothing behind on a digest mismatch', async () => {
    await expect(
      t.engine.export({ workspaceId: 'arts', name: 'report.json', to: join(out, 'report.json'), expectSha256: '0'.repeat(64) }),
    ).rejects.toMatchObject({ code: 'DIGEST_MISMATCH' });
    expect(readdirSync(out)).toEqual([]);
  });

  it('refuses an existing destination unless overwrite is asked, leaving it intact', async () => {
    writeFileSync(join(out, 'report.json'), 'precious');
    await expect(t.engine.export({ workspaceId: 'arts', name: 'report.json', to: join(out, 'report.json') })).rejects.toMatchObject({
      code: 'DESTINATION_EXISTS',
    });
    expect(readFileSync(join(out, 'report.json'), 'utf8')).toBe('precious');
    expect(readdirSync(out)).toEqual(['report.json']);
    await t.engine.export({ workspaceId: 'arts', name: 'report.json', to: join(out, 'report.json'), overwrite: true });
    expect(readFileSync(join(out, 'report.json'), 'utf8')).toBe('{"pi":3.1415926536}');
  });

  it('makes destroy refuse while unexported, and --force name what it discards', async () => {
    await expect(t.engine.destroy({ workspaceId: 'arts' })).rejects.toMatchObject({ message: expect.stringContaining("'report.json'") });
    expect((await t.engine.inspect({ handle: 'arts' })).status).toBe('success');
    const forced = await t.engine.destroy({ workspaceId: 'arts', force: true });
    expect(forced.key_findings).toContain("discarded declared artifact 'report.json' (pi to 10 digits)");
  });

  it('lists the exports that survive a destroy', async () => {
    await t.engine.export({ workspaceId: 'arts', name: 'report.json', to: join(out, 'report.json') });
    const destroyed = await t.engine.destroy({ workspaceId: 'arts' });
    expect(destroyed.key_findings).toContain(`export survives: 'report.json' at ${join(out, 'report.json')} (sha256:${digest})`);
    expect(readFileSync(join(out, 'report.json'), 'utf8')).toBe('{"pi":3.1415926536}');
  });

  it('lets a file found later be declared after the fact and exported', async () => {
    await t.engine.run({ workspaceId: 'arts', argv: ['write', 'notes/found.txt', 'found it'] });
    const listed = await t.engine.listFiles({ workspaceId: 'arts', path: 'notes' });
    expect(findingTexts(listed)).toEqual(['notes/found.txt (8 bytes)']);
    await t.engine.declare({ workspaceId: 'arts', name: 'notes/found.txt', purpose: 'an intermediate file' });
    await t.engine.export({ workspaceId: 'arts', name: 'notes/found.txt', to: join(out, 'found.txt') });
    expect(readFileSync(join(out, 'found.txt'), 'utf8')).toBe('found it');
  });
});
