/**
 * The GNU diagnostic format that gcc and clang print (and mypy, and many
 * tools modelled on them): `file:line:col: error: message [-Wflag]`, the
 * column optional, `fatal error:` counted as an error. Notes are context of
 * the diagnostic before them, not diagnostics of their own.
 *
 * The tool is named from the files: C-family sources are `gcc/clang`, Python
 * sources `mypy`, anything else `compiler`.
 */
import { clipMessage } from './finding-text.js';
import { DiagnosticList, itemCap } from './finding-lists.js';
import type { Diagnostic, DiagnosticTool, FindingParser } from './finding-types.js';

const MARKERS: ReadonlyArray<[string, Diagnostic['severity']]> = [
  [': fatal error: ', 'error'],
  [': error: ', 'error'],
  [': warning: ', 'warning'],
];
const PREFIX = /^([^\s:][^:]*):(\d{1,9})(?::(\d{1,9}))?$/;
/** A trailing `[-Wunused-variable]` (gcc, clang) or `[arg-type]` (mypy) is the diagnostic's code. */
const CODE = /^[-\w=,]{1,80}$/;
const C_FAMILY = /\.(?:c|h|cc|cpp|cxx|hpp|hh|hxx|m|mm|inl|ipp|tcc)$/i;

export const parseGccClang: FindingParser = (lines, options) => {
  const list = new DiagnosticList(itemCap(options));
  const votes = { c: 0, py: 0, other: 0 };
  for (const line of lines) {
    const diagnostic = parseLine(line);
    if (!diagnostic) continue;
    list.add(diagnostic);
    if (C_FAMILY.test(diagnostic.file)) votes.c += 1;
    else if (diagnostic.file.endsWith('.py')) votes.py += 1;
    else votes.other += 1;
  }
  const tool: DiagnosticTool = votes.c >= votes.py && votes.c >= votes.other ? 'gcc/clang' : votes.py >= votes.other ? 'mypy' : 'compiler';
  return list.toFinding(tool);
};

function parseLine(line: string): Diagnostic | null {
  for (const [marker, severity] of MARKERS) {
    const at = line.indexOf(marker);
    if (at <= 0) continue;
    const prefix = PREFIX.exec(line.slice(0, at));
    if (!prefix) return null;
    const { message, code } = splitCode(line.slice(at + marker.length));
    const diagnostic: Diagnostic = { file: prefix[1] ?? '', line: Number(prefix[2]), severity, message: clipMessage(message) };
    if (prefix[3] !== undefined) diagnostic.col = Number(prefix[3]);
    if (code !== undefined) diagnostic.code = code;
    return diagnostic;
  }
  return null;
}

/** `message [-Wflag]` → message and code, by index (a regex here backtracks on long runs of spaces). */
function splitCode(text: string): { message: string; code?: string } {
  const open = text.endsWith(']') ? text.lastIndexOf('[') : -1;
  const code = open > 0 ? text.slice(open + 1, -1) : '';
  return CODE.test(code) ? { message: text.slice(0, open).trimEnd(), code } : { message: text };
}
