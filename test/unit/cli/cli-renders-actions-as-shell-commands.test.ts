/**
 * The CLI writes a suggested call (a NextAction from core) as a command to
 * paste: positional arguments in order, the rest as --kebab-case flags,
 * placeholders in capitals left bare, and HEADSPACE_HOME first when the home
 * is not the default (#11 item 3).
 */
import { describe, expect, it } from 'vitest';
import { cliActionRenderer } from '../../../src/cli/render-action.js';
import { defaultHome } from '../../../src/core/context.js';

describe('the CLI action renderer', () => {
  it('writes positionals in order, flags in kebab case and placeholders bare', () => {
    const render = cliActionRenderer();
    expect(render({ verb: 'export', args: { workspaceId: 'w', name: 'out file.txt', to: 'PATH' } })).toBe("headspace export w 'out file.txt' --to PATH");
    expect(render({ verb: 'stop', args: { workspaceId: 'w', jobId: 'job-1', apply: true } })).toBe('headspace stop w --job-id job-1 --apply');
    expect(render({ verb: 'destroy', args: { workspaceId: 'w', force: false } })).toBe('headspace destroy w');
  });

  it('puts a home that is not the default first, and leaves the default out', () => {
    expect(cliActionRenderer('/tmp/my home')({ verb: 'ls', args: {} })).toBe("HEADSPACE_HOME='/tmp/my home' headspace ls");
    expect(cliActionRenderer(defaultHome())({ verb: 'ls', args: {} })).toBe('headspace ls');
  });
});
