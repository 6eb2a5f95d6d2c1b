/** Fixture outputs made by scripts/make-finding-fixtures.sh from the real tools. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const FIXTURES = fileURLToPath(new URL('../../../../fixtures/findings/', import.meta.url));

export function readFixture(tool: string, name: string): string {
  return readFileSync(`${FIXTURES}${tool}/${name}.out.txt`, 'utf8');
}
