/**
 * Every budget field has exactly one `create` flag, generated from one table,
 * so a new field cannot ship without its flag; and the closed defaults are
 * the brief's.
 */
import { describe, expect, it } from 'vitest';
import { VERBS } from '../../../../src/cli/catalog.js';
import { BUDGET_FIELDS, parseBudgetValue } from '../../../../src/core/policy/budget-fields.js';
import { DEFAULT_BUDGET, defaultPolicy } from '../../../../src/core/policy/policy.js';

describe('budget flags', () => {
  it('gives every budget field a create flag', () => {
    const create = VERBS.find((v) => v.name === 'create')!;
    const flags = create.options.map((o) => o.flags.split(' ')[0]);
    expect(BUDGET_FIELDS.map((f) => f.key).sort()).toEqual(Object.keys(DEFAULT_BUDGET).sort());
    for (const field of BUDGET_FIELDS) expect(flags).toContain(field.flag);
  });

  it("starts closed: no network, no host paths, the brief's budget", () => {
    expect(defaultPolicy()).toEqual({
      network: 'disabled',
      hostPaths: [],
      budget: { memoryBytes: 536870912, cpuLimit: 1, pidsLimit: 128, storageBytes: 1073741824, wallClockSeconds: 300, outputBytes: 10485760, concurrency: 1 },
    });
  });

  it('parses byte suffixes and refuses nonsense', () => {
    const memory = BUDGET_FIELDS.find((f) => f.key === 'memoryBytes')!;
    expect(parseBudgetValue(memory, '512M')).toBe(512 * 1024 * 1024);
    expect(parseBudgetValue(memory, '1G')).toBe(1024 ** 3);
    for (const bad of ['-1', 'lots', '1.5', '0', '1e9', '', ' ', '512X', '99999999999999999999']) {
      expect(() => parseBudgetValue(memory, bad)).toThrow(expect.objectContaining({ code: 'BAD_BUDGET' }));
    }
    const cpu = BUDGET_FIELDS.find((f) => f.key === 'cpuLimit')!;
    expect(parseBudgetValue(cpu, '0.5')).toBe(0.5);
    expect(() => parseBudgetValue(cpu, '2G')).toThrow();
  });
});
