/**
 * A unified text diff of two versions of one file (diff --patch), pure.
 * Myers' O(ND) walk over lines, with three lines of context per hunk. The
 * caller bounds the bytes it is given (a patch is evidence for a reader,
 * never a transport); the walk bounds its own work: lines the two versions
 * share at the start and the end are taken off first, each step keeps only
 * the frontier it reached (2d+1 entries, not the whole width), and past
 * MAX_EDITS differing lines the middle is shown as removed then added whole.
 * Each step once kept a full copy of the frontier: a red team's 12,000-line
 * file took 1.2 GB and 22 s, and the 256 KiB a file may have was ~137 GB.
 */

type Op = { kind: ' ' | '-' | '+'; line: string };

/** Past this many lines removed plus added, the walk stops: O((n+m)·MAX_EDITS) time and O(MAX_EDITS²) memory at most. */
export const MAX_EDITS = 1000;

/** The edit script from `a` to `b`, shortest when it is at most MAX_EDITS long. */
function editScript(a: string[], b: string[]): Op[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const same = (from: number, to: number): Op[] => a.slice(from, to).map((line) => ({ kind: ' ', line }));
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  const middle = shortestScript(midA, midB) ?? [...midA.map((line): Op => ({ kind: '-', line })), ...midB.map((line): Op => ({ kind: '+', line }))];
  return [...same(0, head), ...middle, ...same(a.length - tail, a.length)];
}

/** Myers' greedy shortest path, traced back through each step's frontier (k in [-d, d] at index k + d); null past MAX_EDITS. */
function shortestScript(a: string[], b: string[]): Op[] | null {
  const n = a.length;
  const m = b.length;
  const limit = Math.min(n + m, MAX_EDITS);
  // The frontier before step d, as step d-1 left it: x reached on diagonal k, read at k + (d - 1).
  const trace: Int32Array[] = [];
  let v = new Int32Array(1);
  let done = -1;
  for (let d = 0; d <= limit && done < 0; d++) {
    const next = new Int32Array(2 * d + 1);
    const at = (k: number) => v[k + d - 1]!;
    for (let k = -d; k <= d; k += 2) {
      let x = d === 0 ? 0 : k === -d || (k !== d && at(k - 1) < at(k + 1)) ? at(k + 1) : at(k - 1) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      next[k + d] = x;
      if (x >= n && y >= m) {
        done = d;
        break;
      }
    }
    trace.push(next);
    v = next;
  }
  if (done < 0) return null;
  const ops: Op[] = [];
  let x = n;
  let y = m;
  for (let d = done; d >= 0 && (x > 0 || y > 0); d--) {
    const k = x - y;
    let prevX = 0;
    let prevY = 0;
    let down = false;
    if (d > 0) {
      const before = trace[d - 1]!;
      const at = (kk: number) => before[kk + d - 1]!;
      down = k === -d || (k !== d && at(k - 1) < at(k + 1));
      const prevK = down ? k + 1 : k - 1;
      prevX = at(prevK);
      prevY = prevX - prevK;
    }
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
