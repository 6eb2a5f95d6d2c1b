/**
 * Docker suites skip with a reason where no engine can be had. In CI the
 * test set-up starts one (scripts/setup-docker.sh), so a skip there would
 * hide a regression: under CI=true, not ready is a failure.
 */
import { describe, expect, it } from 'vitest';
import { dockerReadiness } from '../../helpers/docker-readiness.js';

describe('docker readiness', () => {
  it.runIf(process.env.CI === 'true')('is ready on a CI machine, so no docker suite skips there', async () => {
    const readiness = await dockerReadiness();
    expect(readiness.reason).toBe('');
    expect(readiness.ready).toBe(true);
  });
});
