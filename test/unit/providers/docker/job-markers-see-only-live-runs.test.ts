/**
 * Host-side job markers: another process sees a run's job while its process
 * lives, a marker left by a process that died is not a live job, and the
 * stop sentinel is what the run reads to report stopped.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { jobMarkers } from '../../../../src/providers/docker/job-markers.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const fresh = () => {
  const dir = mkdtempSync(join(tmpdir(), 'hs-docker-markers-'));
  dirs.push(dir);
  return dir;
};

it('lists a running job until it ends, and a stop sentinel until then', () => {
  const root = fresh();
  const markers = jobMarkers(root);
  const peer = jobMarkers(root);
  markers.begin('ws', 'job-1');
  expect(peer.live('ws')).toEqual(['job-1']);
  expect(markers.wasStopped('ws', 'job-1')).toBe(false);
  peer.markStopped('ws', 'job-1');
  expect(markers.wasStopped('ws', 'job-1')).toBe(true);
  markers.end('ws', 'job-1');
  expect(peer.live('ws')).toEqual([]);
  expect(markers.wasStopped('ws', 'job-1')).toBe(false);
});

it('does not count a marker whose process is gone', () => {
  const root = fresh();
  const markers = jobMarkers(root);
  markers.begin('ws', 'job-live');
  // A pid far above pid_max belongs to no process.
  writeFileSync(join(root, 'jobs', 'ws', 'job-dead.run'), '4194999\n');
  expect(markers.live('ws')).toEqual(['job-live']);
});
