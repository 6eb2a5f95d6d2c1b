/**
 * Bounded collectors for the two kinds of lists a finding carries. Both keep
 * only what will be shown plus counts, so a log with a million failures or
 * diagnostics costs a few counters, not a million objects.
 */
import type { Diagnostic, DiagnosticTool, DiagnosticsFinding, FindingOptions, TestFailure } from './finding-types.js';

/** At least one item is always shown: a cap of 0 would hide the very fact the finding exists for. */
export function itemCap(options: FindingOptions): number {
  return Number.isFinite(options.maxItems) ? Math.max(1, Math.floor(options.maxItems)) : 1;
}

/** The first `cap` failures and how many there were. */
export class FailureList {
  readonly items: TestFailure[] = [];
  count = 0;
  private readonly cap: number;
  constructor(cap: number) {
    this.cap = cap;
  }

  add(failure: TestFailure): void {
    this.count += 1;
    if (this.items.length < this.cap) this.items.push(failure);
  }

  /** Failing tests not listed: the larger of what was seen and what the summary claimed, minus what is shown. */
  more(claimed = 0): number {
    return Math.max(this.count, claimed) - this.items.length;
  }
}

/**
 * Distinct diagnostics kept apart by severity, so errors come first however
 * late they were printed (three thousand warnings must not push the one error
 * out of the list). Identity covers every field: the same message at another
 * line is another diagnostic.
 */
export class DiagnosticList {
  private readonly seen = new Set<string>();
  private readonly errorItems: Diagnostic[] = [];
  private readonly warningItems: Diagnostic[] = [];
  errors = 0;
  warnings = 0;
  /** Past this many distinct keys, repeats are no longer recognised (memory stays bounded); counts stay right up to it. */
  static readonly MAX_KEYS = 50_000;
  private readonly cap: number;

  constructor(cap: number) {
    this.cap = cap;
  }

  add(diagnostic: Diagnostic): void {
    const key = `${diagnostic.severity}\u0000${diagnostic.file}\u0000${diagnostic.line}\u0000${diagnostic.col ?? ''}\u0000${diagnostic.code ?? ''}\u0000${diagnostic.message}`;
    if (this.seen.has(key)) return;
    if (this.seen.size < DiagnosticList.MAX_KEYS) this.seen.add(key);
    if (diagnostic.severity === 'error') {
      this.errors += 1;
      if (this.errorItems.length < this.cap) this.errorItems.push(diagnostic);
    } else {
      this.warnings += 1;
      if (this.warningItems.length < this.cap) this.warningItems.push(diagnostic);
    }
  }

  toFinding(tool: DiagnosticTool): DiagnosticsFinding | null {
    if (this.errors + this.warnings === 0) return null;
    const items = [...this.errorItems, ...this.warningItems].slice(0, this.cap);
    return { kind: 'diagnostics', tool, errors: this.errors, warnings: this.warnings, items, more: this.errors + this.warnings - items.length };
  }
}
