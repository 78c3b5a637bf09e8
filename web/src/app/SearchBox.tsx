/**
 * The global search box in the top bar: `/` focuses it (unless the user is typing in another field), typing asks
 * GET /api/search (debounced), and the hits drop down grouped by kind with the matched text highlighted. Up/down
 * walk the hits, Enter or a click chooses one, Escape closes the panel.
 *
 * Choosing a hit changes the shell's settings (the same URL keys the shell reads, see state.ts): the selection
 * becomes the hit's run, a tag hit also sets the tag filter to exactly that tag and opens the dashboard of its
 * kind, a text hit opens the text dashboard on its tag. "Select all N runs" selects every run the search found.
 * A run filter that would hide the chosen runs is cleared, so what was chosen is what the dashboard shows.
 */
import { useEffect, useId, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { compileFilter } from "./filters";
import {
  caretLine,
  exactRegex,
  groupHits,
  highlight,
  highlightTerms,
  looksLikeSearchQuery,
  orderedHits,
  type SearchHit,
} from "./search";
import { ALL, normalise, type Selection } from "./selection";
import { settings, useUrlState } from "./state";
import type { RunInfo } from "./types";
import { useSearch, type SearchState } from "./useSearch";
import "./search.css";

export interface SearchBoxProps {
  allRuns: readonly RunInfo[];
  /** Names of the dashboards in this build (a tag hit opens the one of its kind when there is one). */
  dashboards: readonly string[];
}

/** True when a key press goes to a field the user is typing in (where `/` is just a character). */
function typingIn(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  if (target instanceof HTMLInputElement) {
    return !["checkbox", "radio", "button", "submit", "reset", "range", "color", "file"].includes(target.type);
  }
  return false;
}

export function SearchBox(props: SearchBoxProps) {
  const id = useId();
  const listId = `${id}-hits`;
  const input = useRef<HTMLInputElement>(null);
  const panel = useRef<HTMLDivElement>(null);
  const [q, setQ] = useState("");
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  // Case-insensitive by default, like the shell's filters; "Aa" matches case.
  const [matchCase, setMatchCase] = useState(false);
  const { query, result, failure, loading } = useSearch(q, true, { delay: 150, limit: 200, ignoreCase: !matchCase });

  const [runFilter, setRunFilter] = useUrlState("runFilter", "");
  const [, setTagFilter] = useUrlState("tagFilter", "");
  const [, setSelection] = useUrlState<Selection>("runs", ALL);
  const [, setTab] = useUrlState("tab", "");

  const groups = useMemo(() => groupHits(result?.hits ?? []), [result]);
  const hits = useMemo(() => orderedHits(groups), [groups]);
  const terms = useMemo(
    () => (result && result.mode === "pattern" ? highlightTerms(result.query || query, !matchCase) : []),
    [result, query, matchCase],
  );
  const colours = useMemo(() => new Map(props.allRuns.map((r) => [r.run, r.colour])), [props.allRuns]);

  useEffect(() => setActive(0), [result]);

  // "/" anywhere but in a text field focuses the box.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "/" || e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented || typingIn(e.target)) return;
      e.preventDefault();
      input.current?.focus();
      input.current?.select();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);

  useEffect(() => {
    if (!open) return;
    panel.current?.querySelector(`[data-index="${active}"]`)?.scrollIntoView({ block: "nearest" });
  }, [active, open]);

  // The panel hangs from the box's right edge; on a narrow window it moves right so that it stays on screen.
  useLayoutEffect(() => {
    const el = panel.current;
    if (!el) return;
    el.style.transform = "";
    const left = el.getBoundingClientRect().left;
    if (left < 8) el.style.transform = `translateX(${8 - left}px)`;
  });

  const names = useMemo(() => props.allRuns.map((r) => r.run), [props.allRuns]);

  /** Selects `runs` and clears a run filter that would hide any of them. */
  const selectRuns = (runs: readonly string[]) => {
    setSelection(normalise(new Set(runs), names));
    if (runFilter.trim() !== "") {
      const regex = looksLikeSearchQuery(runFilter) ? null : compileFilter(runFilter).regex;
      if (!regex || !runs.every((run) => regex.test(run))) setRunFilter("");
    }
  };

  const close = () => {
    setOpen(false);
    input.current?.blur();
  };

  const choose = (hit: SearchHit) => {
    selectRuns([hit.run]);
    const run = props.allRuns.find((r) => r.run === hit.run);
    if (hit.kind === "tag" && hit.tag !== null) {
      setTagFilter(exactRegex(hit.tag));
      const kind = run && Object.keys(run.tags).find((k) => run.tags[k]!.includes(hit.tag!));
      if (kind && props.dashboards.includes(kind)) setTab(kind);
    } else if (hit.kind === "text" && hit.tag !== null && props.dashboards.includes("text")) {
      setTagFilter(exactRegex(hit.tag));
      setTab("text");
    } else if ((hit.kind === "note" || hit.kind === "log") && props.dashboards.includes("runs")) {
      // The run's row in the Runs table; a console line opens the run's Logs view there too.
      if (hit.kind === "log") settings().set("runs.logs", hit.run);
      setTab("runs");
    }
    close();
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === "Escape") {
      e.preventDefault();
      if (open && q !== "") setOpen(false);
      else close();
    } else if (e.key === "ArrowDown") {
      e.preventDefault();
      setOpen(true);
      setActive((i) => Math.min(i + 1, Math.max(hits.length - 1, 0)));
    } else if (e.key === "ArrowUp") {
      e.preventDefault();
      setOpen(true);
      setActive((i) => Math.max(i - 1, 0));
    } else if (e.key === "Enter") {
      e.preventDefault();
      const hit = hits[active];
      if (open && hit && !loading) choose(hit);
      else setOpen(true);
    }
  };

  const showPanel = open && q.trim() !== "" && (result !== null || failure !== null || loading);
  const activeId = showPanel && hits[active] ? `${id}-hit-${active}` : undefined;

  return (
    <div
      class="search"
      onFocusOut={(e) => {
        const next = e.relatedTarget as Node | null;
        if (!next || !(e.currentTarget as HTMLElement).contains(next)) setOpen(false);
      }}
    >
      <svg class="search-icon" viewBox="0 0 16 16" width="14" height="14" aria-hidden="true">
        <circle cx="6.5" cy="6.5" r="4.5" fill="none" stroke="currentColor" stroke-width="1.6" />
        <path d="M10 10l4.5 4.5" stroke="currentColor" stroke-width="1.6" />
      </svg>
      <input
        ref={input}
        type="search"
        class="search-input"
        data-testid="search-box"
        role="combobox"
        list={undefined}
        aria-label="Search runs, tags, hyperparameters, text (press /)"
        aria-expanded={showPanel ? "true" : "false"}
        aria-controls={listId}
        aria-activedescendant={activeId}
        aria-invalid={failure ? "true" : "false"}
        placeholder="Search  ( / )"
        title="Search runs, tags, hyperparameters, text, dates: a regex (hparam:lr=0\.001), a query or a question"
        spellcheck={false}
        autocomplete="off"
        value={q}
        onInput={(e) => {
          setQ((e.currentTarget as HTMLInputElement).value);
          setOpen(true);
        }}
        onFocus={() => setOpen(true)}
        onKeyDown={onKeyDown}
      />
      <button
        type="button"
        class="search-case"
        data-testid="search-case"
        aria-pressed={matchCase ? "true" : "false"}
        title={matchCase ? "Matching case (click to ignore case)" : "Ignoring case (click to match case)"}
        aria-label="Match case"
        onMouseDown={(e) => e.preventDefault()}
        onClick={() => {
          setMatchCase(!matchCase);
          input.current?.focus();
        }}
      >
        Aa
      </button>
      {showPanel && (
        <div
          class="search-panel"
          ref={panel}
          data-testid="search-results"
          data-query={query}
          aria-busy={loading ? "true" : "false"}
        >
          {failure ? (
            <div class="search-error" role="alert" data-testid="search-error">
              <Caret query={query} position={failure.position} />
              <p>{failure.message}</p>
            </div>
          ) : result ? (
            <>
              <div class="search-summary">
                {result.mode === "question" && (
                  <p class="search-translation">
                    Searched for{" "}
                    <button
                      type="button"
                      class="link-button"
                      data-testid="search-translation"
                      title="Edit this query"
                      onMouseDown={(e) => e.preventDefault()}
                      onClick={() => {
                        setQ(result.query);
                        input.current?.focus();
                      }}
                    >
                      <code>{result.query}</code>
                    </button>
                  </p>
                )}
                <span class="muted">
                  {result.total === 0
                    ? "No match"
                    : `${result.total} hit${result.total === 1 ? "" : "s"}${result.truncated ? `, first ${result.hits.length} shown` : ""}`}
                  {` · ${result.took_ms.toFixed(1)} ms`}
                </span>
                {result.runs.length > 0 && (
                  <button
                    type="button"
                    data-testid="search-select-runs"
                    onMouseDown={(e) => e.preventDefault()}
                    onClick={() => {
                      selectRuns(result.runs);
                      close();
                    }}
                  >
                    Select all {result.runs.length} run{result.runs.length === 1 ? "" : "s"}
                  </button>
                )}
              </div>
              <ul id={listId} role="listbox" aria-label="Search hits" class="search-groups">
                {groups.map((group) => (
                  <li key={group.kind} role="presentation">
                    <div class="search-group-title" role="presentation">
                      {group.title} <span class="muted">{group.hits.length}</span>
                    </div>
                    <ul role="group" aria-label={group.title}>
                      {group.hits.map(({ hit, index }) => (
                        <li
                          key={index}
                          id={`${id}-hit-${index}`}
                          role="option"
                          class="search-hit"
                          data-testid="search-hit"
                          data-kind={hit.kind}
                          data-run={hit.run}
                          data-tag={hit.tag ?? undefined}
                          data-index={index}
                          aria-selected={index === active ? "true" : "false"}
                          onMouseDown={(e) => e.preventDefault()}
                          onMouseMove={() => index !== active && setActive(index)}
                          onClick={() => choose(hit)}
                        >
                          <span class="search-hit-text">
                            {hit.kind === "run" && <Swatch colour={colours.get(hit.run)} />}
                            {highlight(hit.text, hit.kind, terms).map((s, i) =>
                              s.match ? <mark key={i}>{s.text}</mark> : s.text,
                            )}
                          </span>
                          {hit.kind !== "run" && (
                            <span class="search-hit-where muted">
                              <Swatch colour={colours.get(hit.run)} />
                              <bdi>{hit.run}</bdi>
                              {hit.tag !== null && hit.kind !== "tag" && <> · {hit.tag}</>}
                              {hit.step !== null && <> · step {hit.step}</>}
                            </span>
                          )}
                        </li>
                      ))}
                    </ul>
                  </li>
                ))}
              </ul>
            </>
          ) : (
            <p class="muted search-loading">Searching…</p>
          )}
        </div>
      )}
    </div>
  );
}

/**
 * What the run selector's filter shows under a search query: the caret under a 400's position, or for a
 * question the query it was translated into (a click puts that query in the filter so it can be edited).
 */
export function QueryNote(props: { state: SearchState; onEdit(query: string): void }) {
  const { query, result, failure, loading } = props.state;
  if (failure) return <Caret query={query} position={failure.position} />;
  if (!result) return loading ? <span>Searching…</span> : null;
  return (
    <span data-testid="run-filter-query" data-mode={result.mode} data-query={query}>
      {result.mode === "question" ? (
        <>
          Searched for{" "}
          <button type="button" class="link-button" title="Edit this query" onClick={() => props.onEdit(result.query)}>
            <code>{result.query}</code>
          </button>
          {": "}
        </>
      ) : (
        "Search query: "
      )}
      {result.runs.length} run{result.runs.length === 1 ? "" : "s"}
    </span>
  );
}

/** The query with `^` under the character an error points at (nothing when the error has no position). */
function Caret(props: { query: string; position: number | null }) {
  const caret = caretLine(props.query, props.position);
  if (caret === null) return null;
  return (
    <pre class="search-caret" data-testid="search-caret" aria-hidden="true">
      {props.query}
      {"\n"}
      <span>{caret}</span>
    </pre>
  );
}

function Swatch(props: { colour: string | undefined }) {
  return <span class="swatch" aria-hidden="true" style={{ background: props.colour ?? "var(--muted)" }} />;
}
