/**
 * A run whose declared artifact was not produced says so in a warning, and
 * its attention offers to withdraw the declaration, not an export of a file
 * that does not exist (a new user's run, status and inspect each offered
 * the export, which failed with FILE_NOT_FOUND). A produced one is still
 * offered for export.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

describe('an artifact a job did not produce', () => {
  it('is offered withdrawal, and a produced one export', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'w' });
    const ran = await t.engine.run({
      workspaceId: 'w',
      argv: ['write', 'made.txt', 'x'],
      declares: [
        { name: 'made.txt', purpose: 'made' },
        { name: 'report.txt', purpose: 'never made' },
      ],
    });
    expect(ran.warnings.join('\n')).toContain("declared artifact 'report.txt' was not produced");
    const about = (name: string) => ran.attention.find((a) => a.kind === 'unexported-artifact' && a.name === name);
    expect(about('report.txt')?.action).toEqual({ verb: 'declare', args: { workspaceId: 'w', name: 'report.txt', remove: true } });
    expect(about('report.txt')?.text).toContain('was not produced');
    expect(about('made.txt')?.action?.verb).toBe('export');
  });
});
