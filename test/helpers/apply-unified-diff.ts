/** Applies a unified diff (unified-diff.ts's form: one file, numbered hunks) to the old lines: the new lines. */
export function applyUnifiedDiff(before: string[], patch: string): string[] {
  const out: string[] = [];
  let ai = 0;
  const lines = patch.split('\n').filter(Boolean).slice(2);
  for (const l of lines) {
    if (l.startsWith('@@')) {
      const m = /-(\d+),(\d+)/.exec(l)!;
      const start = Number(m[2]) === 0 ? Number(m[1]) : Number(m[1]) - 1;
      while (ai < start) out.push(before[ai++]!);
      continue;
    }
    if (l[0] === ' ') {
      out.push(before[ai++]!);
    } else if (l[0] === '-') ai++;
    else out.push(l.slice(1));
  }
  while (ai < before.length) out.push(before[ai++]!);
  return out;
}
