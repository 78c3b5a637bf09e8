/**
 * How the card grid is cut into lazily mounted chunks (pure; tested alone). A section's tags are split into
 * chunks of a few full rows; a chunk far from the view is one empty block of its (estimated or last measured)
 * height, so 10,000 tags cost 10,000 cards' worth of DOM only where the user looks. Rows must match the CSS
 * grid (`.rl-grid`: auto-fill columns of at least CARD_MIN_WIDTH px, GAP px apart).
 */

export const CARD_MIN_WIDTH = 420;
export const GAP = 12;
/** A card's height (min-height 260 px + borders) plus the gap below it; measured heights replace it. */
export const ROW_PITCH = 274;
/** A section's title row (heading and margins). */
export const SECTION_HEAD = 44;
export const ROWS_PER_CHUNK = 4;

/** Columns of `.rl-grid` in a container `width` px wide. */
export function columnsFor(width: number): number {
  if (!(width > 0)) return 1;
  return Math.max(1, Math.floor((width + GAP) / (CARD_MIN_WIDTH + GAP)));
}

/** `items` cut into consecutive chunks of `size` (the last may be shorter). */
export function chunked<T>(items: readonly T[], size: number): T[][] {
  const n = Math.max(1, Math.floor(size));
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += n) out.push(items.slice(i, i + n));
  return out;
}

/** The estimated height of a grid of `cards` cards in `columns` columns. */
export function gridHeight(cards: number, columns: number): number {
  const rows = Math.ceil(cards / Math.max(1, columns));
  return rows > 0 ? rows * ROW_PITCH - GAP : 0;
}

export interface PlannedSection<T> {
  name: string;
  open: boolean;
  /** Items in the section (also when it is collapsed and has no chunks). */
  total: number;
  chunks: { items: T[]; top: number }[];
}

/**
 * The chunks of each section with their estimated distance from the top of the card area (`start`: the height
 * above the first section). Chunks whose top is within `screen` px are mounted at once, without waiting for an
 * intersection report (the first view draws in the first frame, also right after a filter change).
 */
export function planSections<T>(
  sections: { name: string; items: T[]; open: boolean }[],
  columns: number,
  start: number,
): PlannedSection<T>[] {
  const perChunk = columns * ROWS_PER_CHUNK;
  let y = start;
  return sections.map((s) => {
    y += SECTION_HEAD;
    const chunks: { items: T[]; top: number }[] = [];
    if (s.open) {
      for (const items of chunked(s.items, perChunk)) {
        chunks.push({ items, top: y });
        y += gridHeight(items.length, columns) + GAP;
      }
    }
    return { name: s.name, open: s.open, total: s.items.length, chunks };
  });
}
