/**
 * `batch --strategy` (#16) on the fake provider: race, any (and
 * any_exhausted), quorum, all and allSettled each decide their join from
 * the jobs' recorded ends, cancel the losers and exit with the batch's status.
 */
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { strategyCases } from '../../helpers/batch.js';
import { strategySuite } from '../../helpers/batch-strategy-suite.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);
beforeAll(() => {
  expect(cli(home, ['create', '--workspace-id', 'pool', '--concurrency', '2']).code).toBe(0);
});

describe('each batch strategy on fake', () => {
  strategySuite(() => strategyCases(home, 'pool', {}));
});
