/** A library engine over a fresh home holding one finished job that printed a 100-step trace: the fixture of the logs view tests. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { createHeadspace, type Engine } from '../../src/api/index.js';

export interface TracedJob {
  engine: Engine;
  jobId: string;
}

/** Registers the file's beforeAll/afterAll; the returned object is filled before the first test runs. */
export function tracedJob(prefix: string): TracedJob {
  const home = mkdtempSync(join(tmpdir(), prefix));
  const traced = {} as TracedJob;
  beforeAll(async () => {
    traced.engine = createHeadspace({ home, defaultProvider: 'fake' });
    const workspaceId = (await traced.engine.create({})).provenance.workspace_id!;
    traced.jobId = (await traced.engine.run({ workspaceId, argv: ['trace', '100'] })).provenance.job_id!;
  });
  afterAll(() => {
    traced.engine.close();
    rmSync(home, { recursive: true, force: true });
  });
  return traced;
}

/** The line numbers a numbered logs view shows. */
export const lineNumbers = (excerpt: string | undefined): number[] => (excerpt ?? '').split('\n').map((line) => Number(/^\s*(\d+):/.exec(line)?.[1]));
