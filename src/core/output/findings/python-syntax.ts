/**
 * Python's compile errors: `  File "x.py", line 3` (no `, in fn`: the frame is
 * the source itself), the offending line and a caret, then `SyntaxError: …`
 * (or IndentationError, TabError). Printed alone when the script itself does
 * not parse, or closing a traceback when an imported module does not.
 */
import { DiagnosticList, itemCap } from './finding-lists.js';
import type { FindingParser } from './finding-types.js';
import { parseExceptionLine, parseFrame, SYNTAX_ERRORS, type PythonFrame } from './python-frames.js';

/** The source line and caret lines sit between the frame and the error: a few lines at most. */
const LOOKAHEAD = 4;

export const parsePythonSyntax: FindingParser = (lines, options) => {
  const list = new DiagnosticList(itemCap(options));
  let frame: PythonFrame | null = null;
  let sinceFrame = 0;
  for (const line of lines) {
    if (line.includes('File "')) {
      const parsed = parseFrame(line);
      if (parsed) {
        frame = parsed.fn === undefined ? parsed : null;
        sinceFrame = 0;
        continue;
      }
    }
    if (!frame) continue;
    sinceFrame += 1;
    if (sinceFrame > LOOKAHEAD) {
      frame = null;
      continue;
    }
    const exception = parseExceptionLine(line);
    if (exception && SYNTAX_ERRORS.has(exception.type)) {
      list.add({ file: frame.file, line: frame.line, severity: 'error', message: exception.message, code: exception.type });
      frame = null;
    }
  }
  return list.toFinding('python');
};
