/**
 * The one place every Engine API call goes through (docker-modem's dial) is
 * wrapped so each call waits a bounded time for its answer, and past it the
 * request is destroyed through its abort signal, not left open to a silent
 * engine (answer-bounds.ts). Checked here against a dial that records what
 * it was given and answers when told; the e2e file
 * `a-docker-engine-that-stops-answering-ends-the-call-within-its-bound`
 * checks it against a real engine behind a relay that goes quiet.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ANSWER_BOUND_MS,
  CONTAINER_WAIT_BOUND_MS,
  EngineSilentError,
  answerBoundMs,
  boundAnswers,
  callName,
  type DialShape,
} from '../../../../src/providers/docker/answer-bounds.js';

/** A modem whose dial keeps each call's options and callback, to answer (or not) later. */
function recordingModem() {
  const calls: Array<{ options: DialShape; answer: (error: unknown, data: unknown) => void }> = [];
  const modem = {
    dial(options: DialShape, callback: (error: unknown, data: unknown) => void) {
      calls.push({ options, answer: callback });
    },
  };
  boundAnswers(modem);
  return { modem, calls };
}

describe('each engine call waits a bounded time for its answer', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('ends a call unanswered for the bound with EngineSilentError and aborts its request', () => {
    const { modem, calls } = recordingModem();
    const got: unknown[] = [];
    modem.dial({ path: '/v1.41/containers/abc/json?', method: 'GET' }, (error) => got.push(error));
    expect(calls[0]!.options.abortSignal?.aborted).toBe(false);
    vi.advanceTimersByTime(ANSWER_BOUND_MS - 1);
    expect(got).toEqual([]);
    vi.advanceTimersByTime(1);
    // docker-modem hands the signal to http.request: aborting it destroys the request, and its callback follows.
    expect(calls[0]!.options.abortSignal?.aborted).toBe(true);
    calls[0]!.answer(new Error('aborted'), null);
    expect(got).toHaveLength(1);
    expect(got[0]).toBeInstanceOf(EngineSilentError);
    expect((got[0] as Error).message).toBe('no answer within 10 s (GET containers json)');
  });

  it('passes an answer in time through unchanged, and never aborts it afterwards', () => {
    const { modem, calls } = recordingModem();
    const got: unknown[] = [];
    modem.dial({ path: '/_ping', method: 'GET' }, (error, data) => got.push([error, data]));
    vi.advanceTimersByTime(ANSWER_BOUND_MS / 2);
    calls[0]!.answer(null, 'OK');
    vi.advanceTimersByTime(ANSWER_BOUND_MS * 2);
    expect(got).toEqual([[null, 'OK']]);
    expect(calls[0]!.options.abortSignal?.aborted).toBe(false);
  });

  it("still lets the caller's own signal abort the call", () => {
    const { modem, calls } = recordingModem();
    const mine = new AbortController();
    modem.dial({ path: '/exec/e1/start', method: 'POST', abortSignal: mine.signal }, () => undefined);
    mine.abort();
    expect(calls[0]!.options.abortSignal?.aborted).toBe(true);
  });

  it('gives a container wait a minute and a sent body a second more per whole MiB', () => {
    expect(answerBoundMs({ path: '/containers/abc/json' })).toBe(ANSWER_BOUND_MS);
    expect(answerBoundMs({ path: '/v1.41/containers/abc/wait?condition=not-running' })).toBe(CONTAINER_WAIT_BOUND_MS);
    expect(answerBoundMs({ path: '/containers/abc/archive', file: Buffer.alloc(1024) })).toBe(ANSWER_BOUND_MS);
    expect(answerBoundMs({ path: '/containers/abc/archive', file: Buffer.alloc(5 * 1024 * 1024 + 7) })).toBe(ANSWER_BOUND_MS + 5_000);
  });

  it('names a call in words without ids or slashes, which the caller-facing redaction would take for a host path', () => {
    expect(callName({ method: 'PUT', path: '/v1.41/containers/0123abcd/archive?path=%2Fworkspace&' })).toBe('PUT containers archive');
    expect(callName({ method: 'POST', path: '/exec/f00d/start' })).toBe('POST exec start');
    expect(callName({ method: 'DELETE', path: '/containers/hs-1-ws' })).toBe('DELETE containers');
    expect(callName({ path: '/_ping' })).toBe('GET _ping');
  });
});
