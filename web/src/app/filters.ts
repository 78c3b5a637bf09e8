/**
 * The shell's regex filters (run names, tags): compiled once per pattern, case-insensitive like TensorBoard's,
 * with the parse error kept for the inline message instead of an exception.
 */

export interface CompiledFilter {
  /** null when the pattern is empty (match everything) or invalid. */
  regex: RegExp | null;
  /** The browser's message for an invalid pattern, else null. */
  error: string | null;
}

export function compileFilter(pattern: string): CompiledFilter {
  if (pattern.trim() === "") return { regex: null, error: null };
  try {
    // No "g" flag: test() stays stateless, so dashboards can reuse the RegExp for every tag.
    return { regex: new RegExp(pattern, "i"), error: null };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // Chromium says "Invalid regular expression: /<pattern>/i: <reason>"; the field already shows the pattern.
    const prefix = `Invalid regular expression: /${pattern}/i: `;
    return { regex: null, error: message.startsWith(prefix) ? message.slice(prefix.length) : message };
  }
}

/** A regular expression matching exactly these run names (for the shell's run filter). */
export function exactRunsPattern(runs: string[]): string {
  const esc = runs.map((r) => r.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return esc.length === 1 ? `^${esc[0]}$` : `^(${esc.join("|")})$`;
}

/** The items whose name matches `regex` (all of them for null). */
export function filterByName<T>(items: readonly T[], regex: RegExp | null, name: (item: T) => string): T[] {
  return regex ? items.filter((item) => regex.test(name(item))) : [...items];
}
