/**
 * The run sidebar: a filter on run names (a regex, or a search query answered by /api/search), select all/none (of the runs the filter shows), and a
 * virtualised checkbox list with each run's colour. Sub-runs (torch's add_scalars and add_hparams write them) are
 * nested under their run, named by what their path adds; ticking a run ticks its sub-runs with it. The list is
 * one tab stop: ↑/↓ (Home/End, PageUp/PageDown) move among its checkboxes, Space ticks.
 */
import type { ComponentChildren } from "preact";
import { useMemo, useRef, useState } from "preact/hooks";
import { MiddleEllipsis } from "./MiddleEllipsis";
import { StatusBadge, selectorShowsStatus } from "./StatusBadge";
import { runDepths } from "./runOrder";
import type { RunInfo } from "./types";
import { FilterInput } from "./FilterInput";
import { VirtualList } from "./VirtualList";

export const RUN_ROW_HEIGHT = 28;

export interface RunSelectorProps {
  allRuns: readonly RunInfo[];
  /** The runs the filter lets through, in display order. */
  shownRuns: readonly RunInfo[];
  isSelected(run: string): boolean;
  selectedCount: number;
  filter: string;
  filterError: string | null;
  /** Under the filter: what a search query was run as, or the caret under its error. */
  filterNote?: ComponentChildren;
  /** Starts the filter's error message ("Invalid pattern: " when absent). */
  filterErrorPrefix?: string;
  onFilter(pattern: string): void;
  onToggle(run: string, on: boolean): void;
  onSetShown(on: boolean): void;
  /** The list's width in px, and what dragging its right edge (or the arrow keys on it) sets. */
  width: number;
  onResize(width: number): void;
}

/** Indentation per nesting level (px). */
const NEST_INDENT = 14;

/** What a row shows: a sub-run's path below its parent, any other run's full name. */
export function rowLabel(run: RunInfo): string {
  return run.parent ? run.run.slice(run.parent.length + 1) : run.run;
}

function rowTitle(run: RunInfo): string {
  if (run.attached_to) return `${run.run}: torch add_hparams trial, its hyperparameters are ${run.attached_to}'s`;
  if (run.hparams_trial) return `${run.run} (hyperparameters from ${run.hparams_trial})`;
  return run.run;
}

export function RunSelector(props: RunSelectorProps) {
  const filtered = props.shownRuns.length !== props.allRuns.length;
  const depths = useMemo(() => runDepths(new Map(props.allRuns.map((r) => [r.run, r.parent ?? null]))), [props.allRuns]);
  // The full name of the row under the pointer or with the keyboard focus (cut names keep their tail; this is all of it).
  const [pointed, setPointed] = useState<string | null>(null);
  // The row that holds the list's one tab stop (roving tabindex): a thousand runs are one Tab press, not a thousand.
  const [current, setCurrent] = useState(0);
  const focusIndex = Math.min(current, Math.max(0, props.shownRuns.length - 1));
  const listRef = useRef<HTMLDivElement>(null);
  const moveTo = (index: number) => {
    const next = Math.max(0, Math.min(props.shownRuns.length - 1, index));
    setCurrent(next);
    const scroller = listRef.current?.querySelector<HTMLElement>(".run-list");
    if (!scroller) return;
    const top = next * RUN_ROW_HEIGHT;
    if (top < scroller.scrollTop) scroller.scrollTop = top;
    else if (top + RUN_ROW_HEIGHT > scroller.scrollTop + scroller.clientHeight) {
      scroller.scrollTop = top + RUN_ROW_HEIGHT - scroller.clientHeight;
    }
    // The row is rendered once the list has re-rendered for the new scroll position.
    const run = props.shownRuns[next]!.run;
    const focus = (tries: number) => {
      const box = scroller.querySelector<HTMLInputElement>(`input[data-run="${CSS.escape(run)}"]`);
      if (box) box.focus();
      else if (tries > 0) requestAnimationFrame(() => focus(tries - 1));
    };
    requestAnimationFrame(() => focus(10));
  };
  const onListKey = (e: KeyboardEvent) => {
    const page = Math.max(1, Math.floor((listRef.current?.querySelector(".run-list")?.clientHeight ?? 280) / RUN_ROW_HEIGHT) - 1);
    const moves: Record<string, number> = {
      ArrowDown: focusIndex + 1,
      ArrowUp: focusIndex - 1,
      Home: 0,
      End: props.shownRuns.length - 1,
      PageDown: focusIndex + page,
      PageUp: focusIndex - page,
    };
    if (!(e.key in moves)) return;
    e.preventDefault();
    moveTo(moves[e.key]!);
  };
  return (
    <aside class="sidebar" data-testid="run-selector" aria-label="Runs">
      <ResizeHandle width={props.width} onResize={props.onResize} />
      <FilterInput
        label="Filter runs (regex or search)"
        testId="run-filter"
        value={props.filter}
        error={props.filterError}
        note={props.filterNote}
        errorPrefix={props.filterErrorPrefix}
        placeholder="regex, or hparam:lr=0\.1"
        onInput={props.onFilter}
      />
      <div class="run-actions">
        <button type="button" onClick={() => props.onSetShown(true)} title={filtered ? "Select the runs the filter shows" : "Select every run"}>
          Select all
        </button>
        <button type="button" onClick={() => props.onSetShown(false)} title={filtered ? "Deselect the runs the filter shows" : "Deselect every run"}>
          Select none
        </button>
      </div>
      <p class="run-count" aria-live="polite">
        {props.selectedCount} of {props.allRuns.length} runs selected
        {filtered && `, ${props.shownRuns.length} shown`}
      </p>
      {props.shownRuns.length === 0 ? (
        <p class="muted run-none">No run matches the filter.</p>
      ) : (
        <div ref={listRef} class="run-list-wrap" onKeyDown={onListKey}>
        <VirtualList
          class="run-list"
          label="Runs"
          items={props.shownRuns}
          rowHeight={RUN_ROW_HEIGHT}
          itemKey={(r) => r.run}
          renderItem={(r, index) => (
            <label
              onMouseEnter={() => setPointed(r.run)}
              onMouseLeave={() => setPointed(null)}
              onFocusIn={() => setPointed(r.run)}
              onFocusOut={() => setPointed(null)}
              class={r.parent ? "run-row run-child" : "run-row"}
              title={rowTitle(r)}
              data-depth={depths.get(r.run) ?? 0}
              style={{ paddingLeft: `${4 + NEST_INDENT * (depths.get(r.run) ?? 0)}px` }}
            >
              <input
                type="checkbox"
                data-run={r.run}
                aria-label={r.run}
                tabIndex={index === focusIndex ? 0 : -1}
                onFocus={() => setCurrent(index)}
                checked={props.isSelected(r.run)}
                onChange={(e) => props.onToggle(r.run, (e.currentTarget as HTMLInputElement).checked)}
              />
              <span class="swatch" style={{ background: r.colour }} aria-hidden="true" />
              <MiddleEllipsis class="run-name" text={rowLabel(r)} title={rowTitle(r)} />
              {selectorShowsStatus(r.status) && <StatusBadge status={r.status} compact />}
            </label>
          )}
        />
        </div>
      )}
      <p class="run-full-name" data-testid="run-full-name" aria-hidden="true">
        {pointed}
      </p>
    </aside>
  );
}

/** The run list's right edge: drag it, or focus it and press ←/→ (Shift: larger steps). */
function ResizeHandle(props: { width: number; onResize(width: number): void }) {
  const start = useRef<{ x: number; width: number } | null>(null);
  return (
    <div
      class="sidebar-resize"
      data-testid="sidebar-resize"
      role="separator"
      aria-orientation="vertical"
      aria-label="Resize the run list"
      aria-valuenow={props.width}
      tabIndex={0}
      onPointerDown={(e) => {
        start.current = { x: e.clientX, width: props.width };
        (e.currentTarget as HTMLElement).setPointerCapture(e.pointerId);
        e.preventDefault();
      }}
      onPointerMove={(e) => {
        if (start.current) props.onResize(start.current.width + e.clientX - start.current.x);
      }}
      onPointerUp={() => (start.current = null)}
      onPointerCancel={() => (start.current = null)}
      onKeyDown={(e) => {
        const step = e.shiftKey ? 64 : 16;
        if (e.key === "ArrowRight") props.onResize(props.width + step);
        else if (e.key === "ArrowLeft") props.onResize(props.width - step);
        else return;
        e.preventDefault();
      }}
    />
  );
}
