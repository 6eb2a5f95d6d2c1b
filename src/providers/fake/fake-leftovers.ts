/**
 * What a crashed fake leaves for doctor: temporary state files
 * (`state.json.<pid>.tmp`) of processes that are gone, and a lock whose
 * holder is gone. Removal re-lists first, so only what the fake itself
 * would list is ever deleted.
 */
import { readdirSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ProviderError } from '../../core/errors.js';
import type { Leftover } from '../../core/provider.js';
import { isOwnerAlive } from '../../core/store/owner.js';
import { isStaleLock, readOwner } from './fake-state.js';

export function fakeLeftovers(persistPath: string | undefined): Leftover[] {
  if (!persistPath) return [];
  const dir = dirname(persistPath);
  const base = basename(persistPath);
  const found: Leftover[] = [];
  for (const name of safeReaddir(dir).sort()) {
    const tmp =
      name.startsWith(`${base}.`) && /^\d+$/.test(name.slice(base.length + 1, -4)) && name.endsWith('.tmp') ? Number(name.slice(base.length + 1, -4)) : null;
    if (tmp !== null && !isOwnerAlive({ pid: tmp, started: null })) {
      found.push({
        kind: 'file',
        workspaceId: null,
        target: join(dir, name),
        detail: `temporary state file ${name} of the fake provider, left by process ${tmp}, which is gone`,
      });
    }
    if (name === `${base}.lock`) {
      const holder = readOwner(join(dir, name));
      if (isStaleLock(join(dir, name), holder))
        found.push({
          kind: 'file',
          workspaceId: null,
          target: join(dir, name),
          detail: `lock file ${name} of the fake provider held by ${holder ? `process ${holder.pid}, which is gone` : 'no one (empty and stale)'}`,
        });
    }
  }
  return found;
}

export function removeFakeLeftover(persistPath: string | undefined, leftover: Leftover): void {
  if (!persistPath || dirname(leftover.target) !== dirname(persistPath))
    throw new ProviderError(`not a fake provider leftover: ${leftover.target}`, {
      hint: 'this is a headspace bug: only leftovers the fake listed can be removed',
    });
  if (!fakeLeftovers(persistPath).some((l) => l.target === leftover.target)) return;
  try {
    unlinkSync(leftover.target);
  } catch {
    // Already gone.
  }
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
