/** A regex text field with its inline error: `aria-invalid` and a `[role=alert]` message right after it. */
import type { ComponentChildren } from "preact";
import { useId } from "preact/hooks";

export interface FilterInputProps {
  label: string;
  value: string;
  error: string | null;
  placeholder: string;
  testId: string;
  onInput(value: string): void;
  /** Shown under the field (the run filter's search query: its translation, or the caret under an error). */
  note?: ComponentChildren;
  /** What the error message starts with (default "Invalid pattern: "). */
  errorPrefix?: string;
}

export function FilterInput(props: FilterInputProps) {
  const id = useId();
  const errorId = `${id}-error`;
  return (
    <div class="filter">
      <label for={id} class="filter-label">
        {props.label}
      </label>
      <input
        id={id}
        type="search"
        class="filter-input"
        data-testid={props.testId}
        value={props.value}
        placeholder={props.placeholder}
        spellcheck={false}
        autocomplete="off"
        aria-invalid={props.error ? "true" : "false"}
        aria-describedby={props.error ? errorId : undefined}
        onInput={(e) => props.onInput((e.currentTarget as HTMLInputElement).value)}
      />
      {props.error && (
        <div id={errorId} role="alert" class="filter-error">
          {props.errorPrefix ?? "Invalid pattern: "}
          {props.error}
        </div>
      )}
      {props.note && <div class="filter-note">{props.note}</div>}
    </div>
  );
}
