/**
 * Python traceback pieces shared by the unittest, traceback and SyntaxError
 * parsers: `  File "x.py", line 7, in fn` frames and `Type: message` lines.
 */
import { clipMessage } from './finding-text.js';

export type PythonFrame = { file: string; line: number; fn?: string };

const FRAME = /^\s*File "([^"]+)", line (\d{1,9})(?:, in (\S.*))?$/;
/** `ValueError: bad`, `json.decoder.JSONDecodeError: …`, or a bare `KeyboardInterrupt`. */
const EXCEPTION_LINE = /^([A-Za-z_][\w.]{0,200})(?:: ?(.*))?$/;

export function parseFrame(line: string): PythonFrame | null {
  const match = FRAME.exec(line);
  if (!match) return null;
  const frame: PythonFrame = { file: match[1] ?? '', line: Number(match[2]) };
  if (match[3] !== undefined) frame.fn = match[3];
  return frame;
}

/**
 * The exception named by an unindented line, or null. A bare word counts only
 * when it looks like an exception class (`KeyboardInterrupt`, `SystemExit`),
 * so a stray word after a traceback is not taken for one.
 */
export function parseExceptionLine(line: string): { type: string; message: string } | null {
  if (line === '' || line.startsWith(' ') || line.startsWith('\t')) return null;
  const match = EXCEPTION_LINE.exec(line);
  if (!match) return null;
  const type = match[1] ?? '';
  const message = match[2];
  if (message === undefined && !/(?:Error|Exception|Interrupt|Exit|Warning|Iteration)$/.test(type)) return null;
  return { type, message: clipMessage(message ?? '') };
}

/** Lines Python prints between chained tracebacks, which are not exception lines. */
export function isChainNote(line: string): boolean {
  return line.startsWith('During handling of the above exception') || line.startsWith('The above exception was the direct cause');
}

export const SYNTAX_ERRORS: ReadonlySet<string> = new Set(['SyntaxError', 'IndentationError', 'TabError']);
