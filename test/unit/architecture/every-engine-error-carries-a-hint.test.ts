/**
 * Every error headspace raises on purpose tells the caller what to do next:
 * each `new EngineError(…)` and `new ProviderError(…)` in src/ passes a
 * literal options object with a `hint`. Without one the CLI used to print
 * the same generic "run `headspace explain exit-codes`" for a bad regex, a
 * missing file, an exported directory or `--ttl -5` (#12 item 13).
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REPO } from '../../helpers/cli.js';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** `file:line: code` of each construction whose options carry no `hint`. */
function hintless(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && (node.expression.text === 'EngineError' || node.expression.text === 'ProviderError')) {
      const options = node.arguments?.[node.expression.text === 'EngineError' ? 2 : 1];
      const hinted =
        options !== undefined &&
        ts.isObjectLiteralExpression(options) &&
        options.properties.some((p) => p.name !== undefined && p.name.getText(source) === 'hint');
      if (!hinted)
        found.push(`${relative(REPO, file)}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}: ${node.getText(source).slice(0, 90)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('errors raised on purpose', () => {
  it('each carry a hint', () => {
    expect(sources(join(REPO, 'src')).flatMap(hintless)).toEqual([]);
  });
});
