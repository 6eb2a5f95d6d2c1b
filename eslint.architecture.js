// The architecture of docs/ARCHITECTURE.md ("Dependency direction") as lint
// rules, so a back-arrow fails `npm run lint` where it is written instead of
// in review. Kept apart from eslint.config.js so the test that plants a
// back-arrow (test/unit/architecture/the-lint-fails-on-a-planted-back-arrow)
// lints with exactly these rules without the type-aware ones, which would
// build a TypeScript program and take seconds.
import importX, { createNodeResolver } from 'eslint-plugin-import-x';

const HERE = import.meta.dirname;
const WHY = 'see docs/ARCHITECTURE.md, "Dependency direction".';

// The bottom of core: the vocabulary every other module speaks. They import
// only one another, so any module can use them without a cycle.
const CORE_LEAVES = [
  'status.ts',
  'errors.ts',
  'next-action.ts',
  'clock.ts',
  'ids.ts',
  'events.ts',
  'version.ts',
  'crash-points.ts',
  'name-text.ts',
  'paths.ts',
  'job-identity.ts',
];

// The parts a verb is made of. None of them may reach up into a verb, the
// probe or repair suites, or the engine wrapper: they are what those build on.
const CORE_PARTS = [
  'policy',
  'lifecycle',
  'store',
  'files',
  'result',
  'output',
  'provider.ts',
  'context.ts',
  'infrastructure-errors.ts',
  'learn.ts',
  'reconcile.ts',
  'manifest',
];
const CORE_TOP = ['src/core/engine.ts', 'src/core/input-keys.ts'];

const zones = [
  // Between the folders: cli | mcp | api → core ← providers.
  {
    target: 'src/core',
    from: ['src/cli', 'src/mcp', 'src/ui', 'src/api', 'src/providers'],
    message: `core imports nothing from the faces, the api or a provider: ${WHY}`,
  },
  { target: 'src/providers', from: 'src', except: ['./core', './providers'], message: `a provider imports only core and providers/: ${WHY}` },
  { target: 'src/api', from: ['src/cli', 'src/mcp', 'src/ui'], message: `the api is below the faces that use it: ${WHY}` },
  { target: 'src/mcp', from: 'src', except: ['./api', './core', './mcp'], message: `the MCP server imports only api/, core/ and mcp/: ${WHY}` },
  {
    target: 'src/ui',
    from: 'src',
    except: ['./api', './ui', './mcp/loopback.ts'],
    message: `the dashboard is a face over the library: it imports only api/ (never the store), ui/ and the HTTP guards it shares with the MCP server (mcp/loopback.ts): ${WHY}`,
  },
  { target: 'src/cli', from: 'src/providers', message: `the CLI reaches providers only through api/: ${WHY}` },
  // Inside core, from the bottom up.
  {
    target: CORE_LEAVES.map((file) => `src/core/${file}`),
    from: 'src/core',
    except: CORE_LEAVES.map((file) => `./${file}`),
    message: `status, errors, clock, ids, events, version, crash-points, name-text, paths and job-identity import only one another: ${WHY}`,
  },
  {
    target: CORE_PARTS.map((part) => `src/core/${part}`),
    from: ['src/core/verbs', 'src/core/probe', 'src/core/repair', 'src/core/verb-table', ...CORE_TOP],
    message: `the parts of core (policy, lifecycle, store, files, result, output, context, …) never import a verb, probe/, repair/ or the engine: ${WHY}`,
  },
  {
    target: 'src/core/repair',
    from: ['src/core/verbs', 'src/core/probe', ...CORE_TOP],
    message: `repair/ is what doctor runs: it never imports a verb, probe/ or the engine: ${WHY}`,
  },
  { target: ['src/core/verbs', 'src/core/probe'], from: CORE_TOP, message: `verbs and the probe suite never import the engine wrapper: ${WHY}` },
];

/** Flat-config entries: the folder boundaries and no import cycles over src/. */
export const architecture = [
  {
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      // Follow imports into .ts files (the default follows only .js), parsed as TypeScript: without these no-cycle sees no graph at all.
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/external-module-folders': ['node_modules', 'node_modules/@types'],
      // The sources import './x.js' for './x.ts' (NodeNext): resolve it as tsc does.
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.json', '.node'], extensionAlias: { '.js': ['.ts', '.js'] } })],
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { basePath: HERE, zones }],
      // Type-only imports do not count here (the plugin skips them); the zones above do see them.
      'import-x/no-cycle': 'error',
    },
  },
];
