/**
 * TAP, as `node --test` prints it when stdout is not a terminal (its default
 * there) or under `--test-reporter=tap`, and as other TAP producers print it:
 * `not ok 2 - name` test points, each optionally followed by an indented YAML
 * block (`location: '/a.test.mjs:13:3'`, `error: …`, `name: 'AssertionError'`),
 * subtests indented before their parent, and node's closing `# tests 6` /
 * `# pass 2` / `# fail 3` counts.
 *
 * A point whose subtests precede it (a suite) is not a test of its own: it
 * fails because a child did, and counting it would report one failure twice.
 */
import { clipMessage, indentOf, parseLocation } from './finding-text.js';
import { FailureList, itemCap } from './finding-lists.js';
import type { FindingParser, TestFailure, TestSummaryFinding } from './finding-types.js';

const POINT = /^(not ok|ok)\b(?: \d{1,9})?(?: -)?(.*)$/;
const PLAN = /^1\.\.\d{1,9}\b/;
const COUNT = /^# (tests|pass|fail|skipped|todo|cancelled) (\d{1,9})$/;
const YAML_FIELD = /^(location|error|name|type|failureType): ?(.*)$/;

type Point = { ok: boolean; name: string; indent: number; directive: string; yaml: Map<string, string>; isSuite: boolean };

export const parseTap: FindingParser = (lines, options) => {
  const failures = new FailureList(itemCap(options));
  const counts = new Map<string, number>();
  let sawTapHeader = false;
  let point: Point | null = null;
  let planIndent = -1;
  let inYaml = false;
  let passed = 0;
  let skipped = 0;
  let failedPoints = 0;

  const finish = () => {
    if (!point) return;
    const isSuite = point.isSuite || point.yaml.get('type') === 'suite' || point.yaml.get('failureType') === 'subtestsFailed';
    if (!isSuite) {
      if (/^#\s*(?:skip|todo)\b/i.test(point.directive)) skipped += 1;
      else if (point.ok) passed += 1;
      else {
        failedPoints += 1;
        failures.add(failureOf(point));
      }
    }
    point = null;
  };

  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] ?? '';
    const indent = indentOf(line);
    const body = line.slice(indent);
    if (inYaml) {
      if (body === '...') inYaml = false;
      else if (point && indent === point.indent + 2) readYamlField(point, body, lines, i);
      continue;
    }
    if (body === '---' && point && indent === point.indent + 2) {
      inYaml = true;
      continue;
    }
    if (body.startsWith('TAP version')) sawTapHeader = true;
    if (PLAN.test(body)) {
      planIndent = indent;
      continue;
    }
    const countMatch = indent === 0 ? COUNT.exec(body) : null;
    if (countMatch) {
      counts.set(countMatch[1] ?? '', Number(countMatch[2]));
      continue;
    }
    const match = body.startsWith('ok') || body.startsWith('not ok') ? POINT.exec(body) : null;
    if (!match) continue;
    finish();
    const { name, directive } = splitDirective((match[2] ?? '').trim());
    point = { ok: match[1] === 'ok', name, indent, directive, yaml: new Map(), isSuite: planIndent > indent };
    planIndent = -1;
  }
  finish();
  const isNode = counts.has('tests');
  if (!isNode && !(sawTapHeader && passed + failedPoints + skipped > 0)) return null;
  const failed = counts.get('fail') ?? failedPoints;
  const finding: TestSummaryFinding = {
    kind: 'test-summary',
    tool: isNode ? 'node:test' : 'tap',
    failed,
    passed: counts.get('pass') ?? passed,
    skipped: isNode ? (counts.get('skipped') ?? 0) + (counts.get('todo') ?? 0) : skipped,
    failures: failures.items,
    more: failures.more(failed),
  };
  return finding;
};

/** `name # SKIP reason` → the name and the directive. */
function splitDirective(text: string): { name: string; directive: string } {
  const hash = text.indexOf(' # ');
  if (hash >= 0) return { name: text.slice(0, hash).trim(), directive: text.slice(hash + 1) };
  return text.startsWith('# ') ? { name: '', directive: text } : { name: text, directive: '' };
}

function readYamlField(point: Point, body: string, lines: readonly string[], index: number): void {
  const field = YAML_FIELD.exec(body);
  if (!field) return;
  const key = field[1] ?? '';
  let value = (field[2] ?? '').trim();
  // `error: |-` holds its text on the following, deeper lines: the first non-empty one, and the next when it ends in a colon.
  if (value === '|-' || value === '|' || value === '>-') value = blockScalar(lines, index + 1, indentOf(lines[index] ?? ''));
  point.yaml.set(key, unquote(value));
}

function blockScalar(lines: readonly string[], from: number, fieldIndent: number): string {
  const parts: string[] = [];
  for (let i = from; i < lines.length && i < from + 6 && parts.length < 2; i += 1) {
    const line = lines[i] ?? '';
    if (line.trim() === '') continue;
    if (indentOf(line) <= fieldIndent) break;
    parts.push(line.trim());
    if (!line.trim().endsWith(':')) break;
  }
  return parts.join(' ');
}

function unquote(value: string): string {
  if (value.length >= 2 && ((value.startsWith("'") && value.endsWith("'")) || (value.startsWith('"') && value.endsWith('"')))) {
    return value.slice(1, -1).replace(/''/g, "'").replace(/\\"/g, '"');
  }
  return value;
}

function failureOf(point: Point): TestFailure {
  const failure: TestFailure = { name: point.name };
  const location = point.yaml.get('location');
  const parsed = location ? parseLocation(location) : null;
  if (parsed) failure.location = parsed;
  const error = point.yaml.get('error');
  const type = point.yaml.get('name');
  if (error) failure.message = clipMessage(type && !error.startsWith(type) ? `${type}: ${error}` : error);
  return failure;
}
