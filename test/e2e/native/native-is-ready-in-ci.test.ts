/**
 * Native tests skip with a reason on hosts that cannot isolate (no
 * bubblewrap, no cgroups). In CI, a machine of this project's kind can, so
 * a skip there would hide a regression: under CI=true, not ready is a failure.
 */
import { describe, expect, it } from 'vitest';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

describe('native readiness', () => {
  it.runIf(process.env.CI === 'true' && process.platform === 'linux')('is ready on a CI machine, so no native suite skips there', async () => {
    const readiness = await nativeReadiness();
    expect(readiness.reason).toBe('ready');
    expect(readiness.ready).toBe(true);
  });
});
