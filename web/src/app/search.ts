/**
 * The page side of search (GET /api/search): the answer's types, hits grouped by kind for the result panel,
 * the matched parts of a hit's text for highlighting, the caret under an error's position, and the cheap test
 * that tells a search query from a plain run-name regex in the run selector's filter.
 *
 * Everything here is pure (no DOM, no fetch) so vitest covers it; SearchBox.tsx and useRunQuery.ts use it.
 */

export type SearchKind = "run" | "tag" | "hparam" | "text" | "annotation" | "date" | "metadata" | "note" | "log";

export interface SearchHit {
  kind: SearchKind | string;
  run: string;
  tag: string | null;
  text: string;
  step: number | null;
}

export interface SearchResponse {
  /** What the server ran: the pattern or query as normalised, or the translation of a question. */
  query: string;
  mode: "pattern" | "query" | "question";
  hits: SearchHit[];
  /** The distinct runs the hits (or a structured query) select, in run order. */
  runs: string[];
  total: number;
  truncated: boolean;
  took_ms: number;
}

/** A 400 from /api/search: the message and, when the server knows it, where in the query the problem is. */
export interface SearchFailure {
  message: string;
  position: number | null;
}

/** Result panel order and headings. */
export const KIND_ORDER: readonly SearchKind[] = [
  "run",
  "tag",
  "hparam",
  "note",
  "text",
  "annotation",
  "log",
  "date",
  "metadata",
];

const KIND_TITLES: Record<string, string> = {
  run: "Runs",
  tag: "Tags",
  hparam: "Hyperparameters",
  text: "Text",
  annotation: "Annotations",
  date: "Dates",
  metadata: "Metadata",
  note: "Notes",
  log: "Logs",
};

export function kindTitle(kind: string): string {
  return KIND_TITLES[kind] ?? kind.charAt(0).toUpperCase() + kind.slice(1);
}

export interface HitGroup {
  kind: string;
  title: string;
  /** The group's hits with their position in the flat keyboard order (group after group). */
  hits: { hit: SearchHit; index: number }[];
}

/** Hits grouped by kind in {@link KIND_ORDER} (kinds the page does not know go last, as first met), each group
 * keeping the server's order; `index` numbers the hits in the order the panel shows them. */
export function groupHits(hits: readonly SearchHit[]): HitGroup[] {
  const byKind = new Map<string, SearchHit[]>();
  for (const kind of KIND_ORDER) byKind.set(kind, []);
  for (const hit of hits) {
    let list = byKind.get(hit.kind);
    if (!list) byKind.set(hit.kind, (list = []));
    list.push(hit);
  }
  const groups: HitGroup[] = [];
  let index = 0;
  for (const [kind, list] of byKind) {
    if (list.length === 0) continue;
    groups.push({ kind, title: kindTitle(kind), hits: list.map((hit) => ({ hit, index: index++ })) });
  }
  return groups;
}

/** The hits in the order the panel shows them (what up/down walk through). */
export function orderedHits(groups: readonly HitGroup[]): SearchHit[] {
  return groups.flatMap((g) => g.hits.map((h) => h.hit));
}

// --- highlighting ------------------------------------------------------------------------------------------------

/** The field prefixes of the pattern language and the hit kind each one scopes to. */
const FIELDS = ["run", "tag", "hparam", "metadata", "date", "text", "annotation", "note", "log"];
const FIELD_ALTERNATIVES = FIELDS.join("|");

interface Term {
  kind: string | null;
  regex: RegExp;
}

/** Where the pattern language starts a new term: at AND/OR, before NOT, before a field prefix after a space. */
const TERM_BREAK = new RegExp(`\\s+(?:AND|OR)\\s+|\\s+(?=NOT\\s)|\\s+(?=\\(*(?:${FIELD_ALTERNATIVES}):)`);

/**
 * The regexes of a pattern-language query, for highlighting: the query split where the server's grammar starts a
 * new term (AND/OR/NOT, a field prefix after a space), each part's field prefix (`tag:`) kept as the kind it
 * applies to, and each part compiled as a JavaScript regex. Parts that
 * JavaScript cannot compile (RE2 and JS differ at the edges) or that are negated are left out: highlighting is
 * a help, the server decides what matches.
 */
export function highlightTerms(query: string, ignoreCase = false): Term[] {
  const terms: Term[] = [];
  const parts = query.split(TERM_BREAK);
  let negated = false;
  for (let part of parts) {
    part = part.trim();
    // "NOT tag:x" splits into "NOT" and "tag:x": the part after a lone NOT is negated too.
    const skip = negated || /^NOT(\s|$)/.test(part);
    negated = part === "NOT";
    if (skip) continue;
    let flags = ignoreCase ? "gi" : "g";
    let kind: string | null = null;
    // Grouping parentheses around a scoped part: "(tag:loss" / "run:x)".
    const field = /^\(*([a-z]+):/.exec(part);
    if (field && FIELDS.includes(field[1]!)) {
      kind = field[1]!;
      part = part.slice(field[0].length);
    }
    if (part.startsWith("(?i)")) {
      flags = "gi";
      part = part.slice(4);
    }
    const regex = compileLenient(part, flags);
    if (regex) terms.push({ kind, regex });
  }
  return terms;
}

/** `source` as a RegExp, else with unbalanced outer parentheses dropped, else null. */
function compileLenient(source: string, flags: string): RegExp | null {
  const candidates = [source, source.replace(/^\(+/, ""), source.replace(/\)+$/, ""), source.replace(/^\(+|\)+$/g, "")];
  for (const candidate of candidates) {
    if (candidate === "") continue;
    try {
      return new RegExp(candidate, flags);
    } catch {
      // try the next form
    }
  }
  return null;
}

export interface Segment {
  text: string;
  match: boolean;
}

/** `text` cut into matched and unmatched segments by the terms that apply to `kind` (overlaps merged). */
export function highlight(text: string, kind: string, terms: readonly Term[]): Segment[] {
  const ranges: [number, number][] = [];
  for (const term of terms) {
    if (term.kind !== null && term.kind !== kind) continue;
    const regex = new RegExp(term.regex.source, term.regex.flags);
    let found = 0;
    for (let m = regex.exec(text); m !== null && found < 100; m = regex.exec(text)) {
      if (m[0].length === 0) {
        regex.lastIndex += 1;
        continue;
      }
      ranges.push([m.index, m.index + m[0].length]);
      found += 1;
    }
  }
  if (ranges.length === 0) return text ? [{ text, match: false }] : [];
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const range of ranges) {
    const last = merged[merged.length - 1];
    if (last && range[0] <= last[1]) last[1] = Math.max(last[1], range[1]);
    else merged.push([range[0], range[1]]);
  }
  const segments: Segment[] = [];
  let at = 0;
  for (const [start, end] of merged) {
    if (start > at) segments.push({ text: text.slice(at, start), match: false });
    segments.push({ text: text.slice(start, end), match: true });
    at = end;
  }
  if (at < text.length) segments.push({ text: text.slice(at), match: false });
  return segments;
}

// --- errors --------------------------------------------------------------------------------------------------------

/** The line to print under the query so that `^` sits under character `position` (clamped to the query). */
export function caretLine(query: string, position: number | null): string | null {
  if (position === null || !Number.isFinite(position)) return null;
  const at = Math.max(0, Math.min(Math.trunc(position), query.length));
  return " ".repeat(at) + "^";
}

/** A 400 body ({"error", "position"}) as a {@link SearchFailure}; anything else keeps only a message. */
export function searchFailure(body: unknown, fallback: string): SearchFailure {
  if (body && typeof body === "object" && "error" in body && typeof body.error === "string") {
    const position = "position" in body && typeof body.position === "number" ? body.position : null;
    return { message: body.error, position };
  }
  return { message: fallback, position: null };
}

// --- which filter texts are search queries ----------------------------------------------------------------------

const FIELD_PREFIX = new RegExp(`(?:^|[\\s(])(?:${FIELD_ALTERNATIVES}):`);
const STRUCTURED = [
  /\bmetric\s*\(/i, // metric("val/loss").min
  /\bhparams\s*[.[]/, // hparams.lr, hparams["lr"]
  /==|!=|=~|!~/, // run =~ "resnet"
  /\s(?:<=?|>=?)\s/, // hparams.lr < 0.01
  /^\s*(?:order\s+by\b|limit\s+\d)/i,
  /^\s*(?:run|started|ended|duration|status)\s*(?:[<>]|in\b)/,
  /\s(?:and|or|AND|OR)\s/, // combinations (a run-name regex does not contain spaced words like these)
  /^\s*(?:NOT|not)\s/,
  /\sNOT\s/,
];
// Mirrors ridgeline.search.plain.looks_like_question: a question word (or "runs", "best"...) first, a bare
// comparison (`lr < 0.01`), or a comparison in words among three words or more without regex characters.
const QUESTION_START =
  /^(?:which|what|who|where|when|how|show|list|find|give|get|best|top|worst|bottom|lowest|highest|smallest|largest|biggest|runs|experiments|trials|any|are|is|did|do|does|failed|successful|diverged)\s+\S/i;
const SYMBOL_COMPARISON = /^[a-z_][\w/ .-]*?\s*(?:<=|>=|<|>)\s*-?\.?\d[\d.e+-]*$/i;
const COMPARISON_PHRASE =
  /\b(?:is\s+)?(?:below|under|above|over|less\s+than|lower\s+than|smaller\s+than|greater\s+than|more\s+than|higher\s+than|bigger\s+than|larger\s+than|at\s+least|at\s+most|not\s+equal\s+to|equal\s+to|equals|is\s+not|is)\s+-?\.?\d/i;
const REGEX_CHARS = /[\\^$|*+?{}()[\]]/;

/**
 * True when the run selector's filter text is meant for /api/search rather than a regex over run names: a field
 * prefix (`hparam:`), the structured query language (`metric(`, `hparams.`, `=~`, spaced comparisons, `and`/`or`),
 * or a plain-language question (a question word first, or a `?` at the end of words). A mirror of the server's
 * dispatcher, kept cheap: a regex over run names rarely contains these.
 */
export function looksLikeSearchQuery(text: string): boolean {
  const t = text.trim();
  if (t === "") return false;
  if (FIELD_PREFIX.test(t)) return true;
  if (STRUCTURED.some((re) => re.test(t))) return true;
  if (QUESTION_START.test(t) || SYMBOL_COMPARISON.test(t)) return true;
  if (t.split(/\s+/).length >= 3 && !REGEX_CHARS.test(t) && COMPARISON_PHRASE.test(t)) return true;
  // A trailing "?" after a word, among words (the server takes any trailing "?", but "run_1?" is a regex).
  return /\s/.test(t) && /[A-Za-z]\?$/.test(t);
}

/** `text` as a regex that matches exactly that text (the tag filter for a chosen tag hit). */
export function exactRegex(text: string): string {
  return `^${text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`;
}
