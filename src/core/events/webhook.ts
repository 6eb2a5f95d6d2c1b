/**
 * Push delivery of events by HTTP POST (#15): the URL check, the secret and
 * the signature. The secret is generated at subscribe, shown once, and kept
 * in HEADSPACE_HOME/events/webhooks/<subscription>.key (0600, in a 0700
 * folder): signing needs the secret itself, so a hash of it would not do,
 * and the state store (which backups and doctor read) never holds it.
 *
 * Signature: hex HMAC-SHA256 over `<timestamp>.<body>` with the secret,
 * sent as `X-Headspace-Signature: sha256=<hex>` with
 * `X-Headspace-Timestamp: <unix ms>` and `X-Headspace-Event-Id`; a receiver
 * recomputes it over the raw body and compares in constant time, and may
 * refuse old timestamps to stop replays.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { EngineError } from '../errors.js';
import { inputRef } from '../verb-table/command-words.js';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/**
 * An http(s) URL, loopback unless `allowRemote`. Any 127.0.0.0/8 address
 * counts as loopback; a name other than localhost does not (it could resolve
 * anywhere). Credentials in the URL are refused: the URL is stored and shown.
 */
export function checkWebhookUrl(raw: string, allowRemote: boolean): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new EngineError('BAD_ARGUMENT', `'${raw.slice(0, 60)}' is not a URL`, { hint: 'for example http://127.0.0.1:8080/hook' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new EngineError('BAD_ARGUMENT', `a webhook URL is http or https, not ${url.protocol.slice(0, 20)}`, {
      hint: 'for example http://127.0.0.1:8080/hook',
    });
  }
  if (url.username !== '' || url.password !== '') {
    throw new EngineError('BAD_ARGUMENT', 'a webhook URL may not carry credentials (it is stored and shown)', {
      hint: 'authenticate the receiver by the signature header instead',
    });
  }
  const host = url.hostname;
  const loopback = LOOPBACK_HOSTS.has(host) || (isIP(host) === 4 && host.startsWith('127.'));
  if (!loopback && !allowRemote) {
    throw new EngineError('POLICY_DENIED', `the webhook host ${host.slice(0, 60)} is not on this machine (loopback only: 127.0.0.1, ::1, localhost)`, {
      hint: `allow a remote receiver explicitly (${inputRef('allowRemote')}) if events may leave this machine`,
      inputsOf: 'events-subscribe',
    });
  }
  return url.toString();
}

function secretPath(home: string, subscriptionId: string): string {
  return join(home, 'events', 'webhooks', `${subscriptionId}.key`);
}

export function createWebhookSecret(home: string, subscriptionId: string): string {
  const secret = `whsec_${randomBytes(24).toString('hex')}`;
  const dir = join(home, 'events', 'webhooks');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // O_EXCL: never write through a file (or link) someone put there first.
  const fd = openSync(secretPath(home, subscriptionId), 'wx', 0o600);
  try {
    writeSync(fd, secret);
  } finally {
    closeSync(fd);
  }
  return secret;
}

export function readWebhookSecret(home: string, subscriptionId: string): string {
  try {
    return readFileSync(secretPath(home, subscriptionId), 'utf8').trim();
  } catch (cause) {
    throw new EngineError('STORE_UNAVAILABLE', `the webhook secret of subscription ${subscriptionId} cannot be read`, {
      hint: 'unsubscribe and subscribe again to get a new secret',
      cause,
    });
  }
}

export function removeWebhookSecret(home: string, subscriptionId: string): void {
  rmSync(secretPath(home, subscriptionId), { force: true });
}

export function signWebhook(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** What a receiver does (the tests use it, and the README shows it). */
export function verifyWebhook(secret: string, timestamp: string, body: string, signature: string): boolean {
  const expected = Buffer.from(signWebhook(secret, Number(timestamp), body));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** Back-off before the next push of an event that failed `deliveries` times: 250 ms doubling, at most 60 s. */
export function retryDelayMs(deliveries: number): number {
  return Math.min(60_000, 250 * 2 ** Math.max(0, deliveries - 1));
}
