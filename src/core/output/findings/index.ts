/** Parsed findings (#13 item 3): what the caller needs is one import away. */
export { parseFindings } from './parse-findings.js';
export { findingLines } from './finding-lines.js';
export type {
  Diagnostic,
  DiagnosticsFinding,
  ExceptionFinding,
  Finding,
  FindingOptions,
  SourceLocation,
  TestFailure,
  TestSummaryFinding,
} from './finding-types.js';
