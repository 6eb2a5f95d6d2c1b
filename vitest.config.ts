import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Longest files first, so the two workers finish together instead of one
 * running a long file alone at the end (#20). Vitest does this by itself only
 * from its results cache, which a fresh clone (CI) does not have: it then
 * orders by file size, and a 70 s file of 3 KB started near the end. The
 * durations recorded in test/file-durations.json (scripts/record-test-durations.mjs)
 * stand in for the cache; a file in neither keeps vitest's own order after them.
 */
const pathOf = (spec: TestSpecification): string => relative(spec.project.config.root, spec.moduleId);

/** The recorded durations, or none when the file is missing or unreadable (the order is then vitest's own). */
function recordedDurations(): Record<string, number> {
  try {
    return JSON.parse(readFileSync(new URL('./test/file-durations.json', import.meta.url), 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const recorded = recordedDurations();
    const ordered = await super.sort(files);
    const cached = (spec: TestSpecification) => this.ctx.cache.getFileTestResults(`${spec.project.name}:${pathOf(spec)}`);
    const estimate = (spec: TestSpecification): number => cached(spec)?.duration ?? recorded[pathOf(spec)] ?? 0;
    const failed = (spec: TestSpecification): number => (cached(spec)?.failed === true ? 1 : 0);
    const position = new Map(ordered.map((spec, i) => [spec, i]));
    // As vitest does with its cache: what failed last time first, then the longest.
    return ordered.sort((a, b) => failed(b) - failed(a) || estimate(b) - estimate(a) || position.get(a)! - position.get(b)!);
  }
}

/**
 * Three projects (#20). `unit`: the in-process unit tests, run without per-file
 * isolation (one forked worker runs file after file, with the modules it has
 * already loaded). Measured alone (317 files less native's 65, 2 workers): 78 s
 * wall and 99 s of CPU with a fresh process per file, 23 s and 32 s without;
 * most of a small file's time was starting its process and importing src/
 * again. `threads` instead of `forks` was slower there (72 s) and failed the
 * shared supervisor's in-process tests (it signals and waits on child
 * processes). `system`: the e2e files and the native unit files, which drive
 * real processes, providers and daemons, also without per-file isolation: none
 * of them sets process.env or mocks a module, and each cleans up what it starts
 * (homes, workspaces, daemons), so a worker can run one after another. Measured
 * on a loaded machine, pairs back to back: the MCP e2e files (37) 83 s wall and
 * 48 s of CPU isolated, 54 s and 29 s not; the native unit files (62) 37 s and
 * 43 s, 23 s and 25.5 s. `isolated`: a process of its own per file for what
 * sets process.env for the code under test (HEADSPACE_TEST_CRASH_AT is read
 * once when a module loads: a native file failed without isolation), and the
 * conformance and reliability suites (long files, where a process start is
 * nothing, and hostile-input sets HEADSPACE_PROVIDER for its in-process calls).
 * A unit or system test must therefore leave the process as it found it
 * (restore any env it sets, stop what it starts); one that cannot belongs under
 * isolated.
 */
const NATIVE_UNIT = 'test/unit/providers/native/**/*.test.ts';
/** Native unit files that set process.env for the code under test (the first before a module loads). */
const NATIVE_UNIT_ISOLATED = [
  'test/unit/providers/native/a-create-of-a-removed-id-finishes-its-interrupted-reclaim-first.test.ts',
  'test/unit/providers/native/job-environment-holds-nothing-of-the-host.test.ts',
  'test/unit/providers/native/sandbox-hides-the-host-and-refuses-escapes.test.ts',
];

export default defineConfig({
  test: {
    // Each project names its own files (a root include would be merged into both).
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Native-provider tests share cgroups and the CPU of a 2-core machine.
    fileParallelism: true,
    maxWorkers: 2,
    sequence: { sequencer: LongestFirst },
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'], exclude: [...configDefaults.exclude, NATIVE_UNIT], isolate: false } },
      {
        extends: true,
        test: {
          name: 'system',
          include: ['test/e2e/**/*.test.ts', NATIVE_UNIT],
          exclude: [...configDefaults.exclude, ...NATIVE_UNIT_ISOLATED],
          isolate: false,
        },
      },
      { extends: true, test: { name: 'isolated', include: [...NATIVE_UNIT_ISOLATED, 'test/!(unit|e2e)/**/*.test.ts'] } },
    ],
  },
});
