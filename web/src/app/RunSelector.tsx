/**
 * The run sidebar: a filter on run names (a regex, or a search query answered by /api/search), select all/none (of the runs the filter shows), and a
 * virtualised checkbox list with each run's colour.
 */
import type { ComponentChildren } from "preact";
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
}

export function RunSelector(props: RunSelectorProps) {
  const filtered = props.shownRuns.length !== props.allRuns.length;
  return (
    <aside class="sidebar" data-testid="run-selector" aria-label="Runs">
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
        <VirtualList
          class="run-list"
          label="Runs"
          items={props.shownRuns}
          rowHeight={RUN_ROW_HEIGHT}
          itemKey={(r) => r.run}
          renderItem={(r) => (
            <label class="run-row" title={r.run}>
              <input
                type="checkbox"
                data-run={r.run}
                checked={props.isSelected(r.run)}
                onChange={(e) => props.onToggle(r.run, (e.currentTarget as HTMLInputElement).checked)}
              />
              <span class="swatch" style={{ background: r.colour }} aria-hidden="true" />
              <span class="run-name">{r.run}</span>
            </label>
          )}
        />
      )}
    </aside>
  );
}
