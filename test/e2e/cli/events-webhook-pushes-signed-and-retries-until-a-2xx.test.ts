/**
 * A webhook subscription pushes each event by HTTP POST while `events
 * deliver` runs: signed with the secret shown once at subscribe (HMAC over
 * timestamp and body), acknowledged only on a 2xx, retried with back-off
 * otherwise. Against a local server that fails the first 3 attempts, the
 * event arrives on the 4th and is then acknowledged; against one that
 * always fails, the event stays claimable by a pull consumer. A remote URL
 * is refused without --allow-remote (exit 3).
 */
import { statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../../src/core/events/webhook.js';
import { cli, cliAsync, makeHome } from '../../helpers/cli.js';

interface Received {
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

const { home, cleanup } = makeHome();
let server: Server;
let url = '';
const received: Received[] = [];
let failFirst = 3;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      received.push({ body, headers: req.headers });
      res.statusCode = received.length <= failFirst ? 500 : 204;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  expect(cli(home, ['create', '--workspace-id', 'w']).code).toBe(0);
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await cleanup();
});

function subscribe(name: string): string {
  const made = cli(home, ['events', 'subscribe', '--workspace', 'w', '--name', name, '--webhook', url, '--json']);
  expect(made.code, made.stderr).toBe(0);
  const pkg = JSON.parse(made.stdout) as { key_findings: Array<{ kind: string; secret?: string }> };
  return pkg.key_findings.find((f) => f.kind === 'webhook-secret')!.secret!;
}

describe('webhook delivery', () => {
  it('retries a failing receiver with back-off and acknowledges on the first 2xx, signed', { timeout: 60_000 }, async () => {
    const secret = subscribe('hook');
    expect(statSync(join(home, 'events', 'webhooks', 'hook.key')).mode & 0o777).toBe(0o600);
    expect(cli(home, ['run', 'w', 'echo', 'hi']).code).toBe(0);
    const started = Date.now();
    const delivered = await cliAsync(home, ['events', 'deliver', 'hook', '--once', '--for', '30', '--json']);
    expect(delivered.code, delivered.stderr).toBe(0);
    expect(received).toHaveLength(4);
    // Back-off between attempts: 250 + 500 + 1000 ms at least.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_700);
    const bodies = received.map((r) => JSON.parse(r.body) as { subscription_id: string; delivery: number; event: { id: string; name: string } });
    expect(bodies.map((b) => b.delivery)).toEqual([1, 2, 3, 4]);
    expect(new Set(bodies.map((b) => b.event.id)).size).toBe(1);
    expect(bodies[0]).toMatchObject({ subscription_id: 'hook', event: { name: 'job.succeeded' } });
    for (const r of received) {
      const ts = String(r.headers['x-headspace-timestamp']);
      const signature = String(r.headers['x-headspace-signature']);
      expect(r.headers['x-headspace-event-id']).toBe(bodies[0]!.event.id);
      expect(verifyWebhook(secret, ts, r.body, signature)).toBe(true);
      expect(verifyWebhook(secret, ts, r.body.replace('succeeded', 'failed'), signature)).toBe(false);
      expect(verifyWebhook('whsec_wrong', ts, r.body, signature)).toBe(false);
    }
    const ls = JSON.parse(cli(home, ['events', 'ls', '--json']).stdout) as {
      key_findings: Array<{ id: string; acked: number; pending: number; in_flight: number }>;
    };
    expect(ls.key_findings.find((s) => s.id === 'hook')).toMatchObject({ acked: 1, pending: 0, in_flight: 0 });
  });

  it('leaves an event a receiver keeps refusing claimable by a pull consumer', { timeout: 60_000 }, async () => {
    received.length = 0;
    failFirst = Number.POSITIVE_INFINITY;
    subscribe('down');
    expect(cli(home, ['run', 'w', 'echo', 'again']).code).toBe(0);
    const delivered = await cliAsync(home, ['events', 'deliver', 'down', '--for', '0.6']);
    expect(delivered.code, delivered.stderr).toBe(0);
    expect(received.length).toBeGreaterThanOrEqual(1);
    // A loop whose POSTs failed says so; it is not a clean success.
    expect(delivered.stdout).toMatch(/POST attempt\(s\) to http:\/\/127\.0\.0\.1:\d+\S* failed/);
    const claimed = JSON.parse(cli(home, ['events', 'claim', 'down', '--wait', '5', '--json']).stdout) as {
      key_findings: Array<{ kind: string; job_id: string; deliveries: number }>;
    };
    const events = claimed.key_findings.filter((f) => f.kind === 'event');
    expect(events).toHaveLength(1);
    expect(events[0]!.deliveries).toBe(received.filter((r) => r.body.includes('"subscription_id":"down"')).length + 1);
  });

  it('refuses a URL beyond this machine unless acknowledged, and credentials in the URL', () => {
    const remote = cli(home, ['events', 'subscribe', '--all', '--webhook', 'https://example.com/hook']);
    expect(remote.code).toBe(3);
    expect(remote.stderr).toContain('loopback only');
    expect(cli(home, ['events', 'subscribe', '--all', '--webhook', 'http://u:p@127.0.0.1:1/h']).code).toBe(1);
    expect(cli(home, ['events', 'subscribe', '--all', '--name', 'far', '--webhook', 'https://example.com/hook', '--allow-remote']).code).toBe(0);
  });
});
