/**
 * The #20 scorecard counts aims as well as rows: a CLI aim has a row for the
 * in-process path and one through the resident engine (`headspace serve`),
 * and counts as met when either row meets it (#20 item 1: the resident engine
 * is the answer where slimming cannot reach an aim); every other aim has one
 * row, and a row not measured never counts as met.
 */
import { describe, expect, it } from 'vitest';
// A plain .mjs module of the benchmark (no type declarations; tests are not type-checked by tsc: tsconfig covers src).
import { aimsMet, scorecardRows } from '../../../bench/lib/scorecard.mjs';

type Row = { aim: string; group: string; met: string };
const stats = (medians: Record<string, number>) => Object.fromEntries(Object.entries(medians).map(([k, v]) => [k, { median: v }]));

describe('the scorecard aims', () => {
  it('counts a CLI aim met through serve alone, and an unmet library aim as not met', () => {
    const rows = scorecardRows({
      'cli-startup': {
        ...stats({
          'node -e 0': 20,
          'raw bwrap /bin/true': 10,
          'headspace ls --json': 60,
          'headspace ls --json (through serve)': 28,
        }),
      },
      'native-overhead': {
        tables: {
          true: stats({ 'headspace library (engine.run)': 15, 'raw bwrap (closed profile, no cgroups)': 10, 'bwrap in fresh cgroups (naive floor)': 20 }),
        },
      },
    }) as Row[];
    const ls = rows.filter((r) => r.aim.startsWith('CLI `ls --json'));
    expect(ls.map((r) => r.met)).toEqual(['no', 'yes']);
    expect(new Set(ls.map((r) => r.group)).size).toBe(1);
    const lsAim = aimsMet(ls);
    expect(lsAim).toEqual({ met: 1, of: 1 });
    const libRun = rows.filter((r) => r.aim.startsWith('library `run'));
    expect(libRun.map((r) => r.met)).toEqual(['yes', 'no']);
    expect(aimsMet(libRun)).toEqual({ met: 1, of: 2 });
  });

  it('never counts a row that was not measured', () => {
    const rows = scorecardRows({}) as Row[];
    expect(rows.every((r) => r.met === 'not measured')).toBe(true);
    expect(aimsMet(rows).met).toBe(0);
  });
});
