/**
 * A budget the host cannot honour is refused at create, before anything is
 * recorded or provisioned (policy_denied, exit 3), and the refusal names the
 * host fact and the largest value that would be accepted (second red team,
 * item 2). Storage counts what existing workspaces may still fill (sparse
 * images reserve nothing) and keeps a margin; memory keeps headroom for the
 * host; pids take at most a quarter of the host's task table; cpu at most
 * the CPUs online. A provider that declares no capacity is held to the
 * static ranges only.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { capacityBounds, capacityRefusals } from '../../../../src/core/policy/host-capacity.js';
import { DEFAULT_BUDGET, type Budget } from '../../../../src/core/policy/policy.js';
import type { HostCapacity } from '../../../../src/core/provider.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
/** This VM as the red team found it: 24 GB, 2 CPUs, pid_max 32768, 79 GB free on a 252 GB disk. */
const host: HostCapacity = {
  memoryBytes: 24_684_084 * 1024,
  cpus: 2,
  tasks: 32_768,
  storage: { path: '/var/lib/headspace/native/workspaces', freeBytes: 79 * 1e9, totalBytes: 252 * 1e9, committedBytes: 0 },
};
const budget = (patch: Partial<Budget>): Budget => ({ ...DEFAULT_BUDGET, ...patch });

describe('the capacity rules', () => {
  it('refuse storage past the free space less a 5% margin, naming both', () => {
    const [refusal] = capacityRefusals(budget({ storageBytes: 500 * GiB }), host);
    expect(refusal).toMatchObject({ key: 'storageBytes', flag: '--storage-bytes' });
    expect(refusal!.bound.largest).toBe(Math.floor((79e9 - 252e9 * 0.05) / MiB) * MiB);
    expect(refusal!.bound.host).toMatch(/73\.6 GiB free .* 11\.7 GiB margin/);
  });

  it('count what existing workspaces may still fill against the free space', () => {
    const committed = { ...host, storage: { ...host.storage!, committedBytes: 40 * GiB } };
    expect(capacityRefusals(budget({ storageBytes: 30 * GiB }), host)).toEqual([]);
    const [refusal] = capacityRefusals(budget({ storageBytes: 30 * GiB }), committed);
    expect(refusal!.bound.host).toMatch(/40 GiB of it already promised to existing workspaces/);
  });

  it('refuse memory past the host total less an eighth, pids past a quarter of pid_max, cpu past the CPUs', () => {
    const bounds = capacityBounds(host);
    expect(bounds.memoryBytes!.largest).toBe(Math.floor((24_684_084 * 1024 * 7) / 8 / MiB) * MiB);
    expect(bounds.pidsLimit!.largest).toBe(8192);
    expect(bounds.cpuLimit!.largest).toBe(2);
    const keys = capacityRefusals(budget({ memoryBytes: 64 * 1024 * GiB, pidsLimit: 65_536, cpuLimit: 2.5 }), host).map((r) => r.key);
    expect(keys).toEqual(['memoryBytes', 'pidsLimit', 'cpuLimit']);
  });

  it('accept a budget exactly at each bound, and the default budget', () => {
    const bounds = capacityBounds(host);
    const atBounds = budget({ memoryBytes: bounds.memoryBytes!.largest, storageBytes: bounds.storageBytes!.largest, pidsLimit: 8192, cpuLimit: 2 });
    expect(capacityRefusals(atBounds, host)).toEqual([]);
    expect(capacityRefusals(budget({}), host)).toEqual([]);
  });

  it('hold a provider that declares nothing to the static ranges only', () => {
    expect(capacityRefusals(budget({ storageBytes: 10 * 1024 * GiB }), undefined)).toEqual([]);
    expect(capacityRefusals(budget({ storageBytes: 10 * 1024 * GiB }), { cpus: 2 })).toEqual([]);
  });
});

describe('create against the host capacity', () => {
  let t: TestEngine;
  afterEach(() => t.cleanup());

  it('refuses with policy_denied, the host fact and the largest accepted value, recording and provisioning nothing', async () => {
    t = makeTestEngine({ capacity: host });
    const refused = t.engine.create({ workspaceId: 'too-big', budget: { storageBytes: 500 * GiB } });
    await expect(refused).rejects.toMatchObject({
      code: 'POLICY_DENIED',
      category: 'policy_denied',
      message: expect.stringMatching(/free .* the largest accepted is 61\.8 GiB/),
    });
    // The library and MCP read the field they pass, not the CLI's flag (the CLI spells these marks as --storage-bytes).
    await expect(refused).rejects.toMatchObject({ hint: expect.stringContaining(`budget.storageBytes: ${63323 * MiB}`) });
    await expect(refused).rejects.toMatchObject({ message: expect.stringMatching(/^the fake provider refuses this budget: budget\.storageBytes 500 GiB/) });
    expect(await (await t.engine.provider('fake')).listWorkspaces()).toEqual([]);
    expect((await t.engine.ls({ all: true })).key_findings).toEqual([]);
    // The id stays free: the same id with a budget that fits is created.
    await expect(t.engine.create({ workspaceId: 'too-big', budget: { storageBytes: 4 * GiB } })).resolves.toMatchObject({ status: 'success' });
  });

  it('says when nothing fits, without suggesting a value below the minimum', async () => {
    t = makeTestEngine({ capacity: { ...host, storage: { ...host.storage!, committedBytes: 80 * GiB } } });
    await expect(t.engine.create({ budget: { storageBytes: 64 * MiB } })).rejects.toMatchObject({
      message: expect.stringContaining('the largest accepted is nothing'),
      hint: expect.not.stringContaining('--storage-bytes'),
    });
  });
});
