/**
 * The architecture rules of `npm run lint` (eslint.architecture.js) catch a
 * back-arrow where it is written: planted code that imports against the
 * dependency direction of docs/ARCHITECTURE.md is reported and a clean file
 * is not. That the tree itself passes is `npm run lint` (scripts/test.sh runs
 * it before vitest). This replaces dependencies-point-inward.test.ts, which
 * read imports with a regex and checked four of the rules: the lint enforces
 * those and the layering inside core, and this file proves it bites.
 *
 * Only the architecture entries are used (not the type-aware rules), so no
 * TypeScript program is built; and the boundary cases run without no-cycle,
 * which would walk the whole module graph behind each planted import. The
 * file stays within a few seconds.
 */
import { join } from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { architecture } from '../../../eslint.architecture.js';
import { REPO } from '../../helpers/cli.js';

const parser = { files: ['src/**/*.ts'], languageOptions: { parser: tseslint.parser } };
const withCycles = new ESLint({ cwd: REPO, overrideConfigFile: true, overrideConfig: [parser, ...architecture] });
const boundaries = new ESLint({
  cwd: REPO,
  overrideConfigFile: true,
  overrideConfig: [parser, ...architecture, { files: ['src/**/*.ts'], rules: { 'import-x/no-cycle': 'off' } }],
});

/** The problems reported for `code` linted as if it were the file at `path` (relative to the repo). */
async function problems(path: string, code: string, eslint = boundaries): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(REPO, path) });
  return (result?.messages ?? []).map((m) => `${m.ruleId ?? 'fatal'}: ${m.message}`);
}

describe('the architecture lint', () => {
  it('reports core importing the CLI', async () => {
    const found = await problems('src/core/planted.ts', "import { main } from '../cli/main.js';\nexport const planted = main;\n");
    expect(found).toEqual([expect.stringMatching(/^import-x\/no-restricted-paths: .*"\.\.\/cli\/main\.js".*core imports nothing from the faces/)]);
  });

  it('reports result/ importing a verb, even for a type', async () => {
    const found = await problems('src/core/result/planted.ts', "import type { RunInput } from '../verbs/run.js';\nexport type Planted = RunInput;\n");
    expect(found).toEqual([expect.stringMatching(/^import-x\/no-restricted-paths: .*"\.\.\/verbs\/run\.js".*never import a verb/)]);
  });

  it('reports status.ts importing anything above the leaves', async () => {
    const found = await problems('src/core/status.ts', "import { shellQuote } from './result/shell-quote.js';\nexport const planted = shellQuote;\n");
    expect(found).toEqual([expect.stringMatching(/^import-x\/no-restricted-paths: .*import only one another/)]);
  });

  it('reports a provider importing the api', async () => {
    const found = await problems(
      'src/providers/fake/planted.ts',
      "import { createHeadspace } from '../../api/index.js';\nexport const planted = createHeadspace;\n",
    );
    expect(found).toEqual([expect.stringMatching(/^import-x\/no-restricted-paths: .*a provider imports only core/)]);
  });

  it('reports the dashboard reading the store instead of going through the library', async () => {
    const found = await problems('src/ui/planted.ts', "import { SqliteStore } from '../core/store/sqlite-store.js';\nexport const planted = SqliteStore;\n");
    expect(found).toEqual([expect.stringMatching(/^import-x\/no-restricted-paths: .*the dashboard is a face over the library/)]);
  });

  it('reports an import cycle', async () => {
    // ids.ts imports EngineError from errors.ts, so errors.ts importing ids.ts closes a cycle.
    const found = await problems('src/core/errors.ts', "import { validateId } from './ids.js';\nexport const planted = validateId;\n", withCycles);
    expect(found).toEqual([expect.stringMatching(/^import-x\/no-cycle: /)]);
  });

  it('passes a file that imports only downwards', async () => {
    const found = await problems(
      'src/core/verbs/planted.ts',
      "import { EngineError } from '../errors.js';\nimport { selectExcerpt } from '../output/select-excerpt.js';\nexport const planted = [EngineError, selectExcerpt];\n",
    );
    expect(found).toEqual([]);
  });

  it('passes a file that imports only downwards, cycles included', async () => {
    expect(
      await problems('src/core/verbs/planted.ts', "import { EngineError } from '../errors.js';\nexport const planted = EngineError;\n", withCycles),
    ).toEqual([]);
  });
});
