import type { EngineError } from '../core/errors.js';
import { escapeForTerminal } from '../core/result/visible-text.js';
import { EXIT_CODES } from '../core/status.js';

/**
 * Errors are rendered once, here: `error:` and `hint:` lines on stderr (the
 * category named inline only for 3–8, where it tells the caller why), or
 * under --json a `{code, message, remediation, category}` document on stderr
 * with stdout left empty. Never a stack trace.
 */
export function renderErrorText(error: EngineError): string {
  const category = error.category;
  const code = EXIT_CODES[category];
  const prefix = code >= 3 ? `${category}: ` : '';
  const lines = [`error: ${prefix}${oneLine(error.message)}`];
  lines.push(`hint: ${oneLine(error.hint ?? 'run `headspace explain exit-codes` or `headspace --help`')}`);
  return `${lines.join('\n')}\n`;
}

export function renderErrorJson(error: EngineError): string {
  const category = error.category;
  return `${JSON.stringify({ code: EXIT_CODES[category], message: error.message, remediation: error.hint ?? null, category, reason: error.code })}\n`;
}

/** One line, with every control and bidi character shown as an escape: messages quote job-chosen file names (#10 item 11). */
function oneLine(text: string): string {
  return escapeForTerminal(text.replace(/\n+/g, ' '));
}
