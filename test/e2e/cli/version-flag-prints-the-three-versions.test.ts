/**
 * `headspace --version` works like `headspace version`, and both print the
 * three versions the README promises: headspace's, the result schema's and
 * the state schema's (#12 items 16 and 18).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO, cli, makeHome } from '../../helpers/cli.js';
import { RESULT_SCHEMA_VERSION } from '../../../src/core/result/result-package.js';
import { SCHEMA_VERSION } from '../../../src/core/store/migrations.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);
const version = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;

describe('the version', () => {
  it('is printed by --version, -V and the version verb alike, with all three versions', () => {
    const expected = `headspace ${version}\nresult schema ${RESULT_SCHEMA_VERSION}\nstate schema ${SCHEMA_VERSION}\n`;
    for (const args of [['--version'], ['-V'], ['version']]) {
      const out = cli(home, args);
      expect(out.code, `${args.join(' ')}: ${out.stderr}`).toBe(0);
      expect(out.stdout).toBe(expected);
    }
  });

  it('is one JSON document under --version --json', () => {
    const out = cli(home, ['--version', '--json']);
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual({ name: 'headspace', version, result_schema_version: RESULT_SCHEMA_VERSION, state_schema_version: SCHEMA_VERSION });
  });
});
