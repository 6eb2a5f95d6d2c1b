/**
 * A batch's driver seat is held by a process (its pid and start time), so
 * in a long-lived engine (serve, mcp) a second batch wait on a batch the
 * same process already drove found the seat its own and started a second
 * driving loop beside the first. Both read the member queued and launched
 * it, each with a job id of its own. The process now knows which batches it
 * drives, and a second wait in it waits for the first loop's result.
 *
 * The set-up is test/helpers/supervisor-served-here.ts's: a batch of one
 * job recorded with no driver, the shared supervisor served in this process.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import {
  aHomeWithItsSupervisorServedHere,
  cleanupsAfterEach,
  drivingItsRunningJob,
  recordABatchWithNoDriver,
  within,
} from '../../../helpers/supervisor-served-here.js';

const GROUP = 'bg-00000000beef';

const defer = cleanupsAfterEach();

it('starts the one job of a batch once when two waits in one engine drive it at once', async () => {
  const { home, engine, sleeping, wake } = await aHomeWithItsSupervisorServedHere(defer);
  recordABatchWithNoDriver(home, GROUP, ['sleep', '60']);
  const driving = drivingItsRunningJob(engine, GROUP);
  const first = engine.batchWait({ groupId: GROUP, timeoutSeconds: 20 });
  const second = engine.batchWait({ groupId: GROUP, timeoutSeconds: 20 });
  first.catch(() => undefined);
  second.catch(() => undefined);
  await within(15_000, 'the job running', Promise.all([driving, sleeping]));
  wake();
  const [a, b] = await within(15_000, 'both waits answering', Promise.all([first, second]));
  expect([a.status, b.status]).toEqual(['success', 'success']);
  const db = new Database(join(home, 'state.db'), { readonly: true });
  try {
    const jobs = db.prepare("SELECT id FROM jobs WHERE workspace_id = 'w'").all();
    expect(jobs).toHaveLength(1);
  } finally {
    db.close();
  }
});
