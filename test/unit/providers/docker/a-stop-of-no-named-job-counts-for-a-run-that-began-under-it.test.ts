/**
 * A docker stop that finds no live run to name ends whatever runs in the
 * workspace; a run that began while it was under way (too late for it to
 * see) and whose job it ended must report stopped, as the stop does. It
 * reported a plain signal death instead (docker conformance, a stop
 * racing a run's start). Asked only for a job that ended by a signal.
 */
import { mkdtempSync, rmSync } from 'node:fs';
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

it('is no job of the workspace, and goes with its markers', () => {
  const markers = jobMarkers(root);
  markers.beginStopAll('ws');
  expect(markers.live('ws')).toEqual([]);
  markers.forget('ws');
  expect(markers.stoppedAllSince('ws', 0)).toBe(false);
});
