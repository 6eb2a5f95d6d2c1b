// The #20 scorecard: every speed aim of issue #20 as a ratio (or, for the
// fake provider, a rate) computed from the figures THIS run measured, with
// met / not met. It only reads what the benchmarks returned: a benchmark that
// did not run (`node bench/run.mjs NAME…`), failed or skipped, or a contender
// it does not have (a name another change renamed), shows as "not measured",
// never as met. Contenders named after a measured one plus a suffix (e.g. a
// serve-mode `headspace version …`) get a row of their own against the same aim.
import { table } from './stats.mjs';

const NOT_MEASURED = 'not measured';

/** A median from `stats` (an interleave() result) under `name`, or undefined when it is not a positive finite number. */
const median = (stats, name) => positive(stats?.[name]?.median);
const positive = (x) => (typeof x === 'number' && Number.isFinite(x) && x > 0 ? x : undefined);
const fmt = (x, digits = 2) => (x === undefined ? '?' : x.toFixed(digits));

/**
 * The rows of the scorecard from run.mjs's `results` (benchmark name →
 * its result). Each row: aim, measured (the figure and what it came from),
 * met ('yes', 'no' or 'not measured'), and the load average during the
 * benchmark that measured it.
 */
export function scorecardRows(results) {
  const rows = [];
  const loadOf = (bench) => {
    const load = results[bench]?.load ?? results[bench]?.result?.load;
    const before = load?.before ?? load?.start;
    const after = load?.after ?? load?.end;
    return Array.isArray(before) && Array.isArray(after) ? `${fmt(before[0])} → ${fmt(after[0])}` : '';
  };
  // `group`: the aim a row serves. A CLI aim has a row per mode (in-process, through serve); the others one row each.
  const add = (aim, bench, measured, group = aim) => {
    if (measured === undefined) rows.push({ aim, group, source: bench, measured: NOT_MEASURED, met: NOT_MEASURED, load: loadOf(bench) });
    else rows.push({ aim, group, source: bench, measured: measured.text, met: measured.met ? 'yes' : 'no', load: loadOf(bench) });
  };
  /** `name` (measured or not) and every contender named `name` + a suffix, in the order the benchmark listed them. */
  const variants = (stats, name) => [
    name,
    ...Object.keys(stats ?? {}).filter((key) => key !== name && key.startsWith(name) && /^[\s([]/.test(key.slice(name.length))),
  ];
  const usable = (bench) => {
    const r = results[bench];
    return r !== undefined && r.failed === undefined && r.skipped === undefined ? r : undefined;
  };

  // cli-startup: version and ls against `node -e 0`; run and create against node + k× raw bwrap.
  const cli = usable('cli-startup');
  const node = median(cli, 'node -e 0');
  const cliBwrap = median(cli, 'raw bwrap /bin/true');
  const timesNode = (label, name, most) => {
    for (const n of variants(cli, name)) {
      const m = median(cli, n);
      const ratio = m !== undefined && node !== undefined ? m / node : undefined;
      add(
        `CLI \`${n.replace(/^headspace /, '')}\` ≤ ${most}× \`node -e 0\`${label}`,
        'cli-startup',
        ratio === undefined
          ? undefined
          : {
              text: `${fmt(ratio)}× (${fmt(m, 1)} vs ${fmt(node, 1)} ms)`,
              met: ratio <= most,
            },
        `CLI ${name} ≤ ${most}× node`,
      );
    }
  };
  const nodePlusBwrap = (name, most) => {
    for (const n of variants(cli, name)) {
      const m = median(cli, n);
      const k = m !== undefined && node !== undefined && cliBwrap !== undefined ? (m - node) / cliBwrap : undefined;
      add(
        `CLI \`${n.replace(/^headspace /, '')}\` ≤ node + ${most}× raw bwrap`,
        'cli-startup',
        k === undefined
          ? undefined
          : {
              text: `node + ${fmt(k, 1)}× (${fmt(m, 1)} ms; node ${fmt(node, 1)}, bwrap ${fmt(cliBwrap, 1)})`,
              met: k <= most,
            },
        `CLI ${name} ≤ node + ${most}× raw bwrap`,
      );
    }
  };
  timesNode('', 'headspace version', 1.3);
  timesNode('', 'headspace ls --json', 1.5);
  nodePlusBwrap('headspace run W /bin/true', 4);
  nodePlusBwrap('headspace create --provider native', 6);

  // native-overhead: library create/destroy against raw bwrap; library run against the naive floor and raw bwrap.
  const native = usable('native-overhead');
  const life = native?.tables?.lifecycle;
  const lifeRaw = median(life, 'raw bwrap (closed profile, no cgroups)');
  for (const [verb, name] of [
    ['create', 'headspace library create (engine.create)'],
    ['destroy', 'headspace library destroy (engine.destroy)'],
  ]) {
    const m = median(life, name);
    const ratio = m !== undefined && lifeRaw !== undefined ? m / lifeRaw : undefined;
    add(
      `library \`${verb}\` ≤ 5× raw bwrap \`/bin/true\``,
      'native-overhead',
      ratio === undefined
        ? undefined
        : {
            text: `${fmt(ratio)}× (${fmt(m, 1)} vs ${fmt(lifeRaw, 1)} ms)`,
            met: ratio <= 5,
          },
    );
  }
  const job = native?.tables?.true;
  const libRun = median(job, 'headspace library (engine.run)');
  for (const [floorName, label, most] of [
    ['bwrap in fresh cgroups (naive floor)', 'the naive floor (bwrap in fresh cgroups)', 1.0],
    ['raw bwrap (closed profile, no cgroups)', 'raw bwrap (no cgroups)', 1.25],
  ]) {
    const floor = median(job, floorName);
    const ratio = libRun !== undefined && floor !== undefined ? libRun / floor : undefined;
    add(
      `library \`run /bin/true\` ≤ ${most.toFixed(2)}× ${label}`,
      'native-overhead',
      ratio === undefined
        ? undefined
        : {
            text: `${fmt(ratio)}× (${fmt(libRun, 1)} vs ${fmt(floor, 1)} ms)`,
            met: ratio <= most,
          },
    );
  }

  // scale: fan-out throughput at concurrency 2 against raw bwrap's.
  const fanOut = usable('scale')?.fanOut;
  const hsRate = positive(fanOut?.rows?.['headspace library (native)']?.jobsPerSecond);
  const rawRate = positive(fanOut?.rows?.['raw bwrap (closed profile, no cgroups)']?.jobsPerSecond);
  const fanRatio = hsRate !== undefined && rawRate !== undefined ? hsRate / rawRate : undefined;
  add(
    `fan-out at concurrency ${fanOut?.concurrency ?? 2} ≥ 0.6× raw bwrap's throughput`,
    'scale',
    fanRatio === undefined
      ? undefined
      : {
          text: `${fmt(fanRatio)}× (${fmt(hsRate, 1)} vs ${fmt(rawRate, 1)} jobs/s)`,
          met: fanRatio >= 0.6,
        },
  );

  // library-throughput: fake cycles per second (a rate: the fake has no floor to divide by).
  const perSecond = positive(usable('library-throughput')?.perSecond);
  add(
    'fake provider ≥ 1,000 create+run+destroy cycles/s',
    'library-throughput',
    perSecond === undefined
      ? undefined
      : {
          text: `${perSecond.toFixed(0)} cycles/s`,
          met: perSecond >= 1000,
        },
  );
  return rows;
}

/**
 * Aims met, counting a CLI aim met when one of its modes meets it: #20's item 1
 * makes the optional resident engine (`headspace serve`) the answer where
 * slimming the in-process start cannot reach an aim.
 */
export function aimsMet(rows) {
  const groups = new Map();
  for (const r of rows) groups.set(r.group ?? r.aim, [...(groups.get(r.group ?? r.aim) ?? []), r]);
  const met = [...groups.values()].filter((g) => g.some((r) => r.met === 'yes')).length;
  return { met, of: groups.size };
}

/** The scorecard as markdown: one table, then the run's load average. */
export function scorecardMarkdown(rows, { loadStart, loadEnd }) {
  const met = rows.filter((r) => r.met === 'yes').length;
  const missing = rows.filter((r) => r.met === NOT_MEASURED).length;
  const aims = aimsMet(rows);
  return [
    `Every aim of #20 from this run's own figures: ${met} of ${rows.length} rows met${missing > 0 ? `, ${missing} not measured in this run` : ''}; ${aims.met} of ${aims.of} aims, where a CLI aim counts as met when either its in-process row or its \`(through serve)\` row meets it (#20 item 1: the optional resident engine is the answer where slimming cannot reach an aim; the in-process path stays the default, see README "Resident engine").`,
    '',
    table(
      rows.map((r) => ({ ...r, 'measured (this run)': r.measured, 'load (1 min) during': r.load })),
      ['aim', 'measured (this run)', 'met', 'source', 'load (1 min) during'],
    ),
    '',
    `Load average (1, 5, 15 min) for the whole run: ${loadStart} at the start, ${loadEnd} at the end. "Not measured" means the benchmark did not run, failed or skipped (see its section), or did not report that contender. The whole \`npm test\` wall time (also a #20 aim, ≤ 5 minutes) is not a benchmark: see bench/README.md.`,
  ].join('\n');
}
