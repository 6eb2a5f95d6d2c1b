/**
 * `headspace ui` keeps the MCP HTTP face's rules (#21): it listens on
 * 127.0.0.1, refuses a Host or an Origin that is not loopback (403, DNS
 * rebinding and other sites), answers no data without the token from its URL
 * (401) on any read, refuses the actions unless started with --allow-actions (403), and
 * serves its page with a policy that forbids inline script and framing.
 * Ctrl-C ends it with exit 0.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { BIN, makeHome } from '../../helpers/cli.js';
import { startUi, type UiHandle } from '../../helpers/dashboard.js';

const home = makeHome();
let ui: UiHandle;

beforeAll(async () => {
  ui = await startUi(home.home);
}, 30_000);
afterAll(async () => {
  await ui?.stop();
  await home.cleanup();
});

/** A raw request, so the Host header can be forged (fetch would not). */
function get(path: string, headers: Record<string, string>, method = 'GET'): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  const { port } = new URL(ui.base);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(method === 'POST' ? '{}' : undefined);
  });
}

const bearer = () => ({ authorization: `Bearer ${ui.token}` });

describe('the dashboard server', () => {
  it('prints a loopback URL with a token in its fragment', () => {
    expect(ui.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#token=[A-Za-z0-9_-]{40,}$/);
  });

  it('answers the API with the token, and 401 without it or with another', async () => {
    expect((await get('/api/workspaces', bearer())).status).toBe(200);
    expect((await get('/api/workspaces', {})).status).toBe(401);
    expect((await get('/api/workspaces', { authorization: `Bearer ${ui.token}x` })).status).toBe(401);
  });

  it('guards every read the same way, the storage, samples, batches and probe report too', async () => {
    for (const path of ['/api/workspace-storage?ids=ws-x', '/api/samples?id=ws-x', '/api/batches', '/api/batch?id=bg-x', '/api/probe-last']) {
      expect((await get(path, {})).status, path).toBe(401);
      expect((await get(path, { ...bearer(), origin: 'http://attacker.example' })).status, path).toBe(403);
      expect((await get(path, { ...bearer(), host: 'attacker.example' })).status, path).toBe(403);
    }
    expect((await get('/api/batches', bearer())).status).toBe(200);
    expect((await get('/api/probe-last', bearer())).body).toBe('{"last":null}');
  });

  it('refuses a foreign Host or Origin with 403, token or not', async () => {
    for (const headers of [
      { host: 'attacker.example' },
      { host: `attacker.example:${new URL(ui.base).port}` },
      { origin: 'http://attacker.example' },
      { origin: 'null' },
    ]) {
      const answer = await get('/api/workspaces', { ...bearer(), ...headers });
      expect(answer.status, JSON.stringify(headers)).toBe(403);
      expect((await get('/', headers)).status).toBe(403);
    }
  });

  it('refuses the actions unless started with --allow-actions', async () => {
    const answer = await get('/api/actions/stop', { ...bearer(), 'content-type': 'application/json' }, 'POST');
    expect(answer.status).toBe(403);
    expect(answer.body).toContain('--allow-actions');
  });

  it('serves the page under a policy that forbids inline script and framing', async () => {
    const page = await get('/', {});
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.body).not.toMatch(/https?:\/\/(?!127\.)/); // nothing from the network
  });

  it('prints one JSON document instead of the bare URL with --json', async () => {
    const child = spawn(BIN, ['ui', '--port', '0', '--json'], { env: { ...process.env, HEADSPACE_HOME: home.home }, stdio: ['ignore', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    await expect.poll(() => stdout.includes('\n'), { timeout: 10_000 }).toBe(true);
    child.kill('SIGINT');
    await new Promise((resolve) => child.once('exit', resolve));
    const document = JSON.parse(stdout) as { url: string; port: number; allow_actions: boolean };
    expect(document).toEqual({ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/#token=/), port: expect.any(Number), allow_actions: false });
  });

  it('ends with exit 0 on Ctrl-C', async () => {
    expect(await ui.stop()).toBe(0);
  });
});
