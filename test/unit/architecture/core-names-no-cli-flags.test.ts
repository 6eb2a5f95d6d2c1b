/**
 * Core names no CLI flag and writes no `headspace <verb>` command line in any
 * string it builds (#11 item 3): a suggestion is a NextAction that each face
 * renders (the CLI as a shell command, MCP as a tool call), and a message
 * names an argument in plain words. Before, a model over MCP read
 * `--force` and `headspace export … --to PATH`, which it could not use.
 *
 * The scan reads every string and template literal in src/core (comments are
 * not scanned). The allow-list is small and each entry says why its text is
 * not a suggestion to the caller.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REPO } from '../../helpers/cli.js';

const FLAG = /(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*/g;
const COMMAND_LINE =
  /\bheadspace (?:create|run|stop|inspect|logs|ls-files|ls|destroy|gc|doctor|probe|put|declare|export|learn|explain|mcp|version)(?=$|[\s`'"])/g;

interface Allowed {
  /** Path under src/core. */
  file: string;
  /** The matched text. */
  text: string;
  why: string;
}

const ALLOWED: readonly Allowed[] = [
  ...['--memory-bytes', '--cpu-limit', '--pids-limit', '--storage-bytes', '--wall-clock-seconds', '--output-bytes', '--concurrency'].map((text) => ({
    file: 'policy/budget-fields.ts',
    text,
    why: 'the CLI flag column of the budget table the CLI builds its create options from; it moves to the verb table',
  })),
  ...[
    'headspace create',
    'headspace run',
    'headspace logs',
    'headspace inspect',
    'headspace stop',
    'headspace destroy',
    '--purpose',
    '--grep',
    '--tail',
    '--lines',
    '--logs',
    '--apply',
    '--json',
  ].map((text) => ({
    file: 'learn.ts',
    text,
    why: "the CLI's own learn surface (the default LearnSurface); MCP passes its tool calls instead",
  })),
];

/** Every string the file's literals hold, with its line. */
function literals(file: string, text: string): Array<{ line: number; text: string }> {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Array<{ line: number; text: string }> = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node)
    ) {
      found.push({ line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1, text: node.text });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** `file:line: match` for each flag or command line in `text`'s literals that the allow-list does not name. */
export function cliWordsIn(file: string, text: string, allowed: readonly Allowed[] = ALLOWED): string[] {
  return literals(file, text).flatMap(({ line, text: literal }) =>
    [...literal.matchAll(FLAG), ...literal.matchAll(COMMAND_LINE)]
      .map((m) => m[0])
      .filter((match) => !allowed.some((a) => a.file === file && a.text === match))
      .map((match) => `${file}:${line}: ${match}`),
  );
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const CORE = join(REPO, 'src', 'core');

describe('texts core writes', () => {
  it('name no CLI flag and no headspace command line outside the allow-list', () => {
    const found = sources(CORE).flatMap((path) => cliWordsIn(relative(CORE, path), readFileSync(path, 'utf8')));
    expect(found).toEqual([]);
  });

  it('are scanned by a check that catches a planted flag and command line', () => {
    const planted = "const hint = 'pass --force';\nconst also = `run \\`headspace doctor\\` now`;\n// a comment saying --force is not a text\n";
    expect(cliWordsIn('verbs/planted.ts', planted)).toEqual(['verbs/planted.ts:1: --force', 'verbs/planted.ts:2: headspace doctor']);
  });

  it('keep each allow-list entry in use, so a stale one cannot hide a new text', () => {
    const unused = ALLOWED.filter((a) => cliWordsIn(a.file, readFileSync(join(CORE, a.file), 'utf8'), []).every((f) => !f.endsWith(`: ${a.text}`)));
    expect(unused).toEqual([]);
  });
});
