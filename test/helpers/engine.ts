import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createVirtualClock, type VirtualClock } from '../../src/core/clock.js';
import { createEngine, type Engine, type EngineWithProviders } from '../../src/core/engine.js';
import { PROVIDERS } from '../../src/providers/registry.js';
import { sequentialIds } from '../../src/core/ids.js';
import type { LimitName } from '../../src/core/policy/policy.js';
import type { HostCapacity } from '../../src/core/provider.js';
import { createFakeProvider } from '../../src/providers/fake/fake-provider.js';

export interface TestEngine {
  engine: Engine;
  clock: VirtualClock;
  home: string;
  cleanup(): void;
}

/**
 * An engine over a fresh temporary home, the fake provider (in memory) and a
 * virtual clock, with deterministic ids: ws-000001, job-000001, …
 */
export function makeTestEngine(options: { cannotEnforce?: LimitName[]; broken?: boolean; realClock?: boolean; capacity?: HostCapacity } = {}): TestEngine {
  const home = mkdtempSync(join(tmpdir(), 'hs-test-'));
  const clock = createVirtualClock();
  const engine = createEngine({
    home,
    version: '0.0.0-test',
    defaultProvider: 'fake',
    ...(options.realClock ? {} : { clock }),
    ids: sequentialIds(),
    providers: {
      fake: ({ clock: c }) =>
        createFakeProvider({
          clock: c,
          persistPath: join(home, 'fake', 'state.json'),
          ...(options.cannotEnforce ? { cannotEnforce: options.cannotEnforce } : {}),
          ...(options.broken ? { broken: true } : {}),
          ...(options.capacity ? { capacity: options.capacity } : {}),
        }),
    },
  });
  return {
    engine,
    clock,
    home,
    cleanup() {
      engine.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** Waits (bounded) until a job is recorded running in the workspace: fixed sleeps flake on a loaded machine. */
export async function waitUntilRunning(engine: Engine, workspaceId: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const preview = await engine.stop({ workspaceId });
    if (/^job \S+ is running/.test(preview.outcome_summary)) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no job started running in ${workspaceId} within ${timeoutMs} ms`);
}

/** An engine over the registered providers that can still reach them (the public one cannot, #11): for suites that inspect what a provider left behind. */
export function engineWithProviders(home: string, defaultProvider: string): EngineWithProviders {
  return createEngine({ home, providers: PROVIDERS, defaultProvider, version: '0.0.0-test' });
}
