/**
 * The memory budget is a kernel limit: a job past it is killed and the
 * kernel's OOM counter (not exit 137) says so. The CPU budget throttles: a
 * busy loop with 0.2 cores for ~1 s of wall time gets about 0.2 s of CPU.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeNativeWorkspace, type NativeFixture } from './native-fixture.js';
import { nativeReadiness } from './native-readiness.js';

const readiness = await nativeReadiness();

describe.runIf(readiness.ready)(`budgets (needs a ready native host: ${readiness.reason})`, () => {
  let ws: NativeFixture;
  beforeAll(async () => {
    ws = await makeNativeWorkspace((p) => {
      p.budget.memoryBytes = 64 * 1024 * 1024;
      p.budget.cpuLimit = 0.2;
    });
  });
  afterAll(async () => ws.dispose());

  it('kills a job past its memory budget and reports it from the OOM counter', async () => {
    const { outcome } = await ws.run(['python3', '-c', 'x = b"\\x01" * (256 << 20)']);
    expect(outcome.oomKilled).toBe(true);
    expect(outcome.exitCode).not.toBe(0);
    const next = await ws.run(['true']);
    expect(next.outcome.oomKilled).toBe(false); // the counter is diffed per job
  });

  it('throttles a busy loop to the cpu budget', async () => {
    const { outcome } = await ws.run(['sh', '-c', 'end=$(( $(date +%s) + 2 )); while [ $(date +%s) -lt $end ]; do :; done']);
    expect(outcome.exitCode).toBe(0);
    const wall = outcome.durationMs / 1000;
    expect(outcome.usage.cpuSeconds).toBeDefined();
    expect(outcome.usage.cpuSeconds!).toBeLessThan(wall * 0.35);
  });
});
