/**
 * Shared gate for tests that need real bubblewrap and cgroups: runs the
 * provider's own probe once and says why the host is not ready, so skipped
 * suites carry a reason instead of failing on a laptop without root.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNativeProvider } from '../../../../src/providers/native/native-provider.js';

let cached: Promise<{ ready: boolean; reason: string }> | undefined;

export function nativeReadiness(): Promise<{ ready: boolean; reason: string }> {
  return (cached ??= (async () => {
    if (process.platform !== 'linux') return { ready: false, reason: 'needs Linux (bubblewrap, cgroups)' };
    const dir = mkdtempSync(join(tmpdir(), 'hs-native-probe-'));
    try {
      const probe = await createNativeProvider({ root: dir }).probe();
      const failed = probe.checks.filter((c) => !c.ok);
      return { ready: probe.ready, reason: failed.map((c) => `${c.name}: ${c.detail} (${c.remedy ?? ''})`).join('; ') || 'ready' };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  })());
}
