/**
 * A docker stop that finds no live run to name ends whatever runs in the
 * workspace; a run that began while it was under way (too late for it to
 * see) and whose job it ended must report stopped, as the stop does. It
 * reported a plain signal death instead (docker conformance, a stop
 * racing a run's start). Asked only for a job that ended by a signal.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { jobMarkers } from '../../../../src/providers/docker/job-markers.js';

let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'hs-docker-stop-all-'));
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(1_000_000);
});
afterEach(() => {
  vi.useRealTimers();
  rmSync(root, { recursive: true, force: true });
});

it('counts for a run that began while the stop was under way, read from another process', () => {
  const stopper = jobMarkers(root);
  const runner = jobMarkers(root);
  const started = stopper.beginStopAll('ws');
  vi.setSystemTime(1_000_050);
  const began = runner.begin('ws', 'job-1');
  expect(runner.stoppedAllSince('ws', began)).toBe(true);
  vi.setSystemTime(1_000_300);
  stopper.endStopAll('ws', started, true);
  expect(runner.stoppedAllSince('ws', began)).toBe(true);
});

it('does not count once a stop that found nothing has ended', () => {
  const markers = jobMarkers(root);
  const started = markers.beginStopAll('ws');
  const began = markers.begin('ws', 'job-1');
  markers.endStopAll('ws', started, false);
  expect(markers.stoppedAllSince('ws', began)).toBe(false);
});

it('does not count for a run that began after the stop ended', () => {
  const markers = jobMarkers(root);
  markers.endStopAll('ws', markers.beginStopAll('ws'), true);
  vi.setSystemTime(1_000_001);
  expect(markers.stoppedAllSince('ws', markers.begin('ws', 'job-2'))).toBe(false);
});

it('keeps two stops apart: one that found nothing leaves the other standing', () => {
  const markers = jobMarkers(root);
  const started = markers.beginStopAll('ws');
  const began = markers.begin('ws', 'job-1');
  // Another process's stop, which ended the job after the run began: a file of its own (its pid is not ours).
  writeFileSync(join(root, 'jobs', 'ws', `stop-all.4194998.${began}`), `${began} ${began + 30}\n`);
  markers.endStopAll('ws', started, false);
  expect(markers.stoppedAllSince('ws', began)).toBe(true);
});

it('does not count a stop whose process died before its end, and the next stop clears it', () => {
  const markers = jobMarkers(root);
  const began = markers.begin('ws', 'job-1');
  // A pid far above pid_max belongs to no process: a stop interrupted (kill -9) before it wrote its end.
  writeFileSync(join(root, 'jobs', 'ws', `stop-all.4194999.${began}`), `${began}\n`);
  expect(markers.stoppedAllSince('ws', began)).toBe(false);
  markers.endStopAll('ws', markers.beginStopAll('ws'), false);
  expect(markers.stoppedAllSince('ws', began)).toBe(false);
});

it('is no job of the workspace, and goes with its markers', () => {
  const markers = jobMarkers(root);
  markers.beginStopAll('ws');
  expect(markers.live('ws')).toEqual([]);
  markers.forget('ws');
  expect(markers.stoppedAllSince('ws', 0)).toBe(false);
});
