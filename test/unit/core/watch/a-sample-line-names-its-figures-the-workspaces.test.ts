/**
 * A watch sample's cpu, memory and pids are the workspace's (its cgroup),
 * every job it ran counted: the compact line says `workspace cpu`, so a job
 * line reading "cpu 1.8s" for a job that used 0.09 s is not taken as the
 * job's own (a new user).
 */
import { describe, expect, it } from 'vitest';
import { sampleLine, type WatchSample } from '../../../../src/core/verbs/watch.js';

const sample: WatchSample = {
  type: 'sample',
  at: '2026-01-01T00:00:01.000Z',
  elapsed_seconds: 1,
  workspace_id: 'w',
  job_id: 'job-1',
  state: 'running',
  workspace_state: 'ready',
  provider_state: 'ready',
  cpu_seconds: 1.8,
  memory_bytes: 1024,
  pids: 2,
  storage_bytes: 4096,
  output_bytes: 10,
  last_output_at: null,
};

describe('a watch sample line', () => {
  it("names its cpu as the workspace's", () => {
    expect(sampleLine(sample)).toContain('job-1 running workspace cpu 1.8s');
  });
});
