/**
 * The exception that ended a Python program: the last `Traceback (most recent
 * call last):` block's closing `Type: message` line and its innermost frame.
 * Chained tracebacks print the one that escaped last, so the last block is
 * the one that matters.
 *
 * A SyntaxError whose innermost frame is the bad source line itself (no
 * `, in fn`) is left to the SyntaxError parser, which reports it as a
 * diagnostic with the same file:line.
 */
import type { ExceptionFinding, FindingParser } from './finding-types.js';
import { isChainNote, parseExceptionLine, parseFrame, SYNTAX_ERRORS, type PythonFrame } from './python-frames.js';

const TRACEBACK = 'Traceback (most recent call last):';

export const parsePythonTraceback: FindingParser = (lines) => {
  let start = -1;
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    if ((lines[i] ?? '').trimStart().startsWith(TRACEBACK)) {
      start = i;
      break;
    }
  }
  if (start < 0) return null;
  // The traceback's own indentation (a logger may indent it) is stripped from every line.
  const indent = (lines[start] ?? '').length - (lines[start] ?? '').trimStart().length;
  let innermost: PythonFrame | null = null;
  for (let i = start + 1; i < lines.length; i += 1) {
    const line = (lines[i] ?? '').slice(indent);
    const frame = parseFrame(line);
    if (frame) {
      innermost = frame;
      continue;
    }
    if (line === '' || line.startsWith(' ') || line.startsWith('\t') || isChainNote(line)) continue;
    const exception = parseExceptionLine(line);
    if (!exception) return null;
    if (SYNTAX_ERRORS.has(exception.type) && innermost && innermost.fn === undefined) return null;
    const finding: ExceptionFinding = { kind: 'exception', language: 'python', type: exception.type, message: exception.message };
    if (innermost) finding.location = { file: innermost.file, line: innermost.line };
    return finding;
  }
  return null;
};
