/**
 * A unified text diff of two versions of one file (diff --patch), pure.
 * Myers' O(ND) walk over lines, with three lines of context per hunk. The
 * caller bounds what it is given (size and line count): a patch is evidence
 * for a reader, never a transport.
 */

type Op = { kind: ' ' | '-' | '+'; line: string };

/** The edit script from `a` to `b`: Myers' greedy shortest path, traced back through the saved frontiers. */
function editScript(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const offset = max + 1;
  let v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = false;
  for (let d = 0; d <= max && !found; d++) {
    trace.push(v.slice());
    const next = v.slice();
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      next[offset + k] = x;
      if (x >= n && y >= m) {
        found = true;
        break;
      }
    }
    v = next;
  }
  trace.push(v);
  const ops: Op[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 2; d >= 0 && (x > 0 || y > 0); d--) {
    const frontier = trace[d]!;
    const k = x - y;
    const down = k === -d || (k !== d && frontier[offset + k - 1]! < frontier[offset + k + 1]!);
    const prevK = down ? k + 1 : k - 1;
    const prevX = d === 0 ? 0 : frontier[offset + prevK]!;
    const prevY = d === 0 ? 0 : prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push({ kind: ' ', line: a[--x]! });
      y--;
    }
    if (d > 0) {
      if (down) ops.push({ kind: '+', line: b[--y]! });
      else ops.push({ kind: '-', line: a[--x]! });
    }
  }
  return ops.reverse();
}

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** `--- a/PATH` / `+++ b/PATH` and its hunks; empty when the texts are equal. */
export function unifiedDiff(path: string, before: string, after: string, context = 3): string {
  const a = splitLines(before);
  const b = splitLines(after);
  const ops = editScript(a, b);
  if (ops.every((op) => op.kind === ' ')) return '';
  const out = [`--- a/${path}`, `+++ b/${path}`];
  let i = 0;
  let aLine = 1;
  let bLine = 1;
  const positions = ops.map((op) => {
    const at = { a: aLine, b: bLine };
    if (op.kind !== '+') aLine++;
    if (op.kind !== '-') bLine++;
    return at;
  });
  while (i < ops.length) {
    while (i < ops.length && ops[i]!.kind === ' ') i++;
    if (i >= ops.length) break;
    const start = Math.max(0, i - context);
    let end = i;
    // A hunk runs on while the next change is within 2×context lines.
    for (;;) {
      while (end < ops.length && ops[end]!.kind !== ' ') end++;
      let gap = end;
      while (gap < ops.length && ops[gap]!.kind === ' ') gap++;
      if (gap < ops.length && gap - end <= 2 * context) end = gap;
      else {
        end = Math.min(ops.length, end + context);
        break;
      }
    }
    const hunk = ops.slice(start, end);
    const aCount = hunk.filter((op) => op.kind !== '+').length;
    const bCount = hunk.filter((op) => op.kind !== '-').length;
    const from = positions[start]!;
    out.push(`@@ -${aCount === 0 ? from.a - 1 : from.a},${aCount} +${bCount === 0 ? from.b - 1 : from.b},${bCount} @@`);
    for (const op of hunk) out.push(`${op.kind}${op.line}`);
    i = end;
  }
  return `${out.join('\n')}\n`;
}
