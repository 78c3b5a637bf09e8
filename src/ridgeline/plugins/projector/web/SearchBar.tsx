/**
 * Search over the embedding's metadata: ridgeline's pattern language on the server (`meta:PATTERN` terms, or bare
 * patterns, combined with AND / OR / NOT; case-insensitive), in every column or one. The matches become the
 * selection, highlighted in the plot. Kept in the URL ("p.q", "p.qcol").
 */
import { useEffect, useState } from "preact/hooks";
import { useUrlState } from "@app/state";
import * as api from "./api";
import type { EmbeddingId } from "./api";

interface Props {
  id: EmbeddingId;
  columns: string[];
  hits: number[];
  onHits(hits: number[]): void;
}

export function SearchBar({ id, columns, hits, onHits }: Props) {
  const [query, setQuery] = useUrlState("p.q", "");
  const [column, setColumn] = useUrlState("p.qcol", "");
  const [text, setText] = useState(query);
  const [state, setState] = useState<{ total: number; error: string | null } | null>(null);
  useEffect(() => setText(query), [query]);
  useEffect(() => {
    const timer = setTimeout(() => text !== query && setQuery(text), 250);
    return () => clearTimeout(timer);
  }, [text]);
  useEffect(() => {
    if (!query.trim()) {
      setState(null);
      onHits([]);
      return;
    }
    const controller = new AbortController();
    api.search(id, query, columns.includes(column) ? column : null, controller.signal).then(
      (found) => {
        setState({ total: found.total, error: null });
        onHits(found.indices);
      },
      (err: unknown) => {
        if (err instanceof DOMException && err.name === "AbortError") return;
        setState({ total: 0, error: err instanceof Error ? err.message : String(err) });
        onHits([]);
      },
    );
    return () => controller.abort();
  }, [query, column, id.run, id.tag, String(id.step)]);
  return (
    <section class="rl-proj-panel rl-proj-search" aria-label="Search the metadata">
      <label class="rl-proj-field">
        <span>Search the metadata</span>
        <input
          type="search"
          value={text}
          placeholder="meta:^cat|dog (regex)"
          spellcheck={false}
          data-testid="projector-search"
          aria-invalid={state?.error ? "true" : undefined}
          onInput={(e) => setText(e.currentTarget.value)}
        />
      </label>
      <label class="rl-proj-field">
        <span>in</span>
        <select value={column} data-testid="projector-search-column" onChange={(e) => setColumn(e.currentTarget.value)}>
          <option value="">every column</option>
          {columns.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      </label>
      {state?.error && (
        <p class="rl-proj-error" role="alert" data-testid="projector-search-error">
          {state.error}
        </p>
      )}
      {state && !state.error && (
        <p class="rl-muted" data-testid="projector-search-count" data-count={state.total}>
          {state.total.toLocaleString()} match{state.total === 1 ? "" : "es"}
          {hits.length < state.total ? ` (${hits.length.toLocaleString()} shown)` : ""}
        </p>
      )}
    </section>
  );
}
