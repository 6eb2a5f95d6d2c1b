/**
 * gc over expired workspaces whose provider fails (an engine down, or one
 * that takes the connection and never answers) ends infrastructure_failure
 * (exit 7), not success: it once exited 0 saying "left 3 (see attention)",
 * as if each workspace had been kept on purpose. It tries the failing
 * provider once: each other workspace of it is named as not tried, where
 * before every one paid its own wait for the same answer. Nothing is lost:
 * the workspaces stay recorded, and a gc once the provider answers
 * destroys them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createVirtualClock } from '../../../../src/core/clock.js';
import { createEngine, type Engine } from '../../../../src/core/engine.js';
import { exitCodeOf } from '../../../../src/core/errors.js';
import { sequentialIds } from '../../../../src/core/ids.js';
import { createFakeProvider } from '../../../../src/providers/fake/fake-provider.js';

const home = mkdtempSync(join(tmpdir(), 'hs-gc-failing-'));
const clock = createVirtualClock();
const engines: Engine[] = [];
afterEach(() => {
  for (const e of engines) e.close();
  rmSync(home, { recursive: true, force: true });
});

/** An engine on the shared home; its fake provider keeps its state in the home, so a broken one sees the same workspaces. */
function engineOnHome(broken: boolean): Engine {
  const engine = createEngine({
    home,
    version: '0.0.0-test',
    defaultProvider: 'fake',
    clock,
    ids: sequentialIds(),
    providers: { fake: ({ clock: c }) => createFakeProvider({ clock: c, persistPath: join(home, 'fake', 'state.json'), broken }) },
  });
  engines.push(engine);
  return engine;
}

it('ends infrastructure_failure, tries the failing provider once, loses nothing, and a later gc finishes', async () => {
  const healthy = engineOnHome(false);
  for (const id of ['old-a', 'old-b', 'old-c']) await healthy.create({ workspaceId: id, ttlSeconds: 60 });
  await healthy.create({ workspaceId: 'young', ttlSeconds: 3600 });
  clock.advance(120_000);

  const pass = await engineOnHome(true).gc();
  expect(pass.status).toBe('infrastructure_failure');
  expect(exitCodeOf(pass.status)).toBe(7);
  expect(pass.outcome_summary).toBe(
    'gc destroyed 0 expired workspace(s); marked 3 expired; left 3 (see attention); the fake provider failed: retry once it answers',
  );
  const [first, ...rest] = pass.attention.filter((a) => a.kind === 'expired');
  expect(first?.text).toMatch(
    /^workspace old-a expired and could not be destroyed: the fake backend is broken .*\(create the fake provider without broken: true; if the fake provider will never remove it .*, destroy with abandon \(from the command line or the library; not offered over MCP\) records the workspace destroyed .*\)$/,
  );
  expect(rest.map((a) => a.text)).toEqual([
    expect.stringMatching(/^workspace old-b expired and was not tried: the fake provider failed on old-a \(the fake backend is broken/),
    expect.stringMatching(/^workspace old-c expired and was not tried: the fake provider failed on old-a \(the fake backend is broken/),
  ]);
  // The failure's own way out (the broken fake names none, so its destroy), and the pass again for those not tried.
  expect(first?.action).toMatchObject({ verb: 'destroy', args: { workspaceId: 'old-a' } });
  for (const item of rest) expect(item.action).toMatchObject({ verb: 'gc' });

  const after = await healthy.gc();
  expect(after.status).toBe('success');
  expect(after.key_findings).toEqual([
    expect.stringMatching(/^workspace old-a destroyed/),
    expect.stringMatching(/^workspace old-b destroyed/),
    expect.stringMatching(/^workspace old-c destroyed/),
  ]);
  expect((await healthy.inspect({ handle: 'young' })).status).toBe('success');
});
