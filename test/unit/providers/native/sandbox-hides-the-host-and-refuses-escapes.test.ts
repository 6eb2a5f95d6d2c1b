/**
 * Inside the sandbox the job is a non-root uid with no capabilities, sees
 * no host path in /proc/1/cmdline, cannot write outside /workspace and /tmp,
 * cannot remount, unshare or ptrace, has only loopback networking, and sees
 * none of the host environment.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeNativeWorkspace, type NativeFixture } from './native-fixture.js';
import { nativeReadiness } from './native-readiness.js';

const readiness = await nativeReadiness();

describe.runIf(readiness.ready)(`the sandbox (needs a ready native host: ${readiness.reason})`, () => {
  let ws: NativeFixture;
  beforeAll(async () => {
    process.env.HEADSPACE_CANARY_HOST_ENV = 'canary-host-env';
    ws = await makeNativeWorkspace();
  });
  afterAll(async () => {
    delete process.env.HEADSPACE_CANARY_HOST_ENV;
    await ws.dispose();
  });

  it('runs the job as a non-root uid without capabilities', async () => {
    const { stdout } = await ws.run(['sh', '-c', 'id -u; grep CapEff /proc/self/status']);
    const [uid, caps] = stdout.trim().split('\n');
    expect(Number(uid)).toBeGreaterThan(0);
    expect(caps).toMatch(/CapEff:\s+0+$/);
  });

  it('shows no host path in /proc/1/cmdline and none of the host environment', async () => {
    const { stdout } = await ws.run(['sh', '-c', 'tr "\\0" " " < /proc/1/cmdline; echo; env']);
    expect(stdout).not.toContain(ws.root);
    expect(stdout).not.toContain('canary-host-env');
  });

  it('refuses writes outside /workspace and /tmp, remounts, unshare and new namespaces', async () => {
    const script = [
      'touch /usr/x 2>/dev/null && echo WROTE-USR',
      'touch /etc/x 2>/dev/null && echo WROTE-ETC',
      'touch /x 2>/dev/null && echo WROTE-ROOT',
      'mount -o remount,rw / 2>/dev/null && echo REMOUNTED',
      'unshare -U true 2>/dev/null && echo UNSHARED',
      'touch /workspace/ok /tmp/ok && echo WROTE-OK',
    ].join('; ');
    const { stdout } = await ws.run(['sh', '-c', script]);
    expect(stdout.trim()).toBe('WROTE-OK');
  });

  it('has only a loopback network', async () => {
    const { stdout } = await ws.run(['sh', '-c', 'ls /sys/class/net 2>/dev/null || cat /proc/net/dev']);
    expect(stdout).toContain('lo');
    expect(stdout).not.toMatch(/eth|ens|enp|wl/);
  });
});
