/**
 * `headspace explain` with no verb or topic answers "what can you explain?"
 * with the list, exit 0, instead of commander's "missing required argument".
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('explain alone', () => {
  it('lists every topic and verb it can explain and exits 0', () => {
    const out = cli(home, ['explain']);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).not.toContain('missing required argument');
    for (const word of ['exit-codes', 'result', 'policy', 'fake', 'events', 'run', 'destroy', 'seal']) expect(out.stdout).toContain(word);
  });

  it('gives the same list as data under --json', () => {
    const out = cli(home, ['explain', '--json']);
    expect(out.code, out.stderr).toBe(0);
    const doc = JSON.parse(out.stdout) as { topics: string[]; verbs: { name: string }[] };
    expect(doc.topics).toContain('exit-codes');
    expect(doc.verbs.map((v) => v.name)).toContain('run');
  });
});
