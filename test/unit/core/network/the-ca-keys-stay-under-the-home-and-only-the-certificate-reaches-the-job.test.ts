/**
 * The workspace CA (#18 item 3): its keys live under HEADSPACE_HOME/ca/<ws>/
 * (directory 0700, keys 0600), made once; a job's egress directory — the only
 * host directory the sandbox binds from — holds its socket and a trust bundle
 * (the system roots and the CA certificate), never a private key; destroy's
 * removal takes the keys away. Leaf certificates verify against the CA for
 * the host they name and no other.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { afterAll, expect, it } from 'vitest';
import { caDir, ensureWorkspaceCa, loadWorkspaceCa, removeWorkspaceCa } from '../../../../src/core/network/egress-ca.js';
import { openEgressSession } from '../../../../src/core/network/egress-session.js';
import { planSecrets } from '../../../../src/core/network/egress-secrets.js';

const home = mkdtempSync(join(tmpdir(), 'hs-ca-test-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

it('keeps the keys 0600 in a 0700 directory under the home, made once', () => {
  ensureWorkspaceCa(home, 'ws-ca');
  const dir = caDir(home, 'ws-ca');
  expect(dir.startsWith(home)).toBe(true);
  expect(statSync(dir).mode & 0o777).toBe(0o700);
  for (const key of ['ca-key.pem', 'leaf-key.pem']) expect(statSync(join(dir, key)).mode & 0o777, key).toBe(0o600);
  const before = readFileSync(join(dir, 'ca-key.pem'), 'utf8');
  ensureWorkspaceCa(home, 'ws-ca');
  expect(readFileSync(join(dir, 'ca-key.pem'), 'utf8')).toBe(before);
});

it('signs a leaf for the host asked for, cached, that verifies against the CA and names that host only', async () => {
  ensureWorkspaceCa(home, 'ws-ca');
  const ca = loadWorkspaceCa(home, 'ws-ca');
  try {
    const leaf = ca.leafFor('api.test');
    expect(ca.leafFor('api.test')).toBe(leaf);
    const cert = new X509Certificate((await leaf).cert);
    expect(cert.verify(new X509Certificate(ca.certPem).publicKey)).toBe(true);
    expect(cert.checkHost('api.test')).toBe('api.test');
    expect(cert.checkHost('evil.test')).toBeUndefined();
    expect(new X509Certificate((await ca.leafFor('127.0.0.1')).cert).checkIP('127.0.0.1')).toBe('127.0.0.1');
  } finally {
    await ca.close();
  }
});

it("puts only the socket and a bundle holding no private key in a job's egress directory", async () => {
  const secrets = planSecrets([{ name: 'TOKEN', value: 'v', host: 'api.test' }], { network: 'allowlist', networkAllow: ['api.test'] }, {});
  const session = await openEgressSession(['api.test'], { simulated: false, env: {}, socket: { home, workspaceId: 'ws-ca' }, secrets });
  try {
    const bundle = session.channel.caBundlePath!;
    const dir = join(bundle, '..');
    expect(readdirSync(dir).sort()).toEqual(['ca-bundle.pem', 'egress.sock']);
    const text = readFileSync(bundle, 'utf8');
    expect(text).not.toContain('PRIVATE KEY');
    expect(text.trim().endsWith(loadWorkspaceCa(home, 'ws-ca').certPem.trim())).toBe(true);
  } finally {
    await session.close();
  }
});

it('removes the keys with the workspace', () => {
  removeWorkspaceCa(home, 'ws-ca');
  expect(() => statSync(caDir(home, 'ws-ca'))).toThrow();
});
