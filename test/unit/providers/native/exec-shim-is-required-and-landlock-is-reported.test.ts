/**
 * The exec shim closes the descriptors a caller leaked (#10 item 1), so the
 * native provider without it is not ready and names the build command; it
 * never runs jobs without it. Landlock is defence in depth: the capabilities
 * list it as a layer exactly when the kernel has it, and otherwise the
 * probe's advisory `landlock` check says why, without making the provider
 * unready.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../../../src/core/policy/policy.js';
import { defaultExecHelperPath } from '../../../../src/providers/native/exec-helper.js';
import { createNativeProvider } from '../../../../src/providers/native/native-provider.js';
import { nativeReadiness } from './native-readiness.js';

const readiness = await nativeReadiness();
const root = mkdtempSync(join(tmpdir(), 'hs-native-shim-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe.runIf(readiness.ready)(`the exec shim on native${readiness.ready ? '' : ` (skipped: ${readiness.reason})`}`, () => {
  it('is required: without it the provider is not ready, and create is refused with the build command as the remedy', async () => {
    const provider = createNativeProvider({ root: join(root, 'missing'), execHelperPath: join(root, 'no-such-headspace-exec') });
    const probe = await provider.probe();
    expect(probe.ready).toBe(false);
    const check = probe.checks.find((c) => c.name === 'exec-helper');
    expect(check).toMatchObject({ ok: false, detail: expect.stringContaining('missing'), remedy: expect.stringContaining('scripts/build-native-helper.sh') });
    // Missing machinery is an outage (exit 7), not a policy the host cannot back (#12 item 4).
    await expect(provider.create({ workspaceId: 'w1', policy: defaultPolicy(), profile: 'host' })).rejects.toMatchObject({
      code: 'PROVIDER_FAILURE',
      hint: expect.stringContaining('build-native-helper.sh'),
    });
  });

  it('lists landlock among the layers exactly when the kernel offers it, and says why not otherwise', async () => {
    const abi = Number(execFileSync(defaultExecHelperPath(), ['--abi'], { encoding: 'utf8' }).split(' ')[0]);
    const provider = createNativeProvider({ root: join(root, 'ok') });
    const caps = await provider.capabilities();
    expect(caps.layers).toContain('fd-closing');
    expect(caps.layers.includes('landlock')).toBe(abi > 0);
    const check = (await provider.probe()).checks.find((c) => c.name === 'landlock');
    expect(check?.ok).toBe(abi > 0);
    expect(check?.detail).toMatch(abi > 0 ? new RegExp(`^Landlock ABI ${abi}`) : /^not applied: /);
  });
});
