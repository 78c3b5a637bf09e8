/**
 * A searchable picker for one of many names (tags): a text box of bounded width that filters a list as one
 * types (case-insensitive; exact matches, then prefixes, then the rest), ↑/↓ to move, Enter to choose, Escape to
 * leave it as it was. It follows the ARIA combobox pattern (role="combobox", a listbox, aria-activedescendant),
 * so a screen reader reads the highlighted option. With thousands of names only the first {@link SHOWN} matches
 * are in the page; typing narrows them. The chosen name shows whole on hover (title).
 */
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import "./combobox.css";

/** How many matches the list shows at once (typing narrows the rest). */
export const SHOWN = 100;

export interface ComboboxProps {
  options: readonly string[];
  value: string;
  onChange(value: string): void;
  /** The accessible name (also the placeholder when nothing is chosen). */
  label: string;
  placeholder?: string;
  testId?: string;
}

/** `options` matching `query`: exact matches first, then those starting with it, then those containing it. */
export function matchOptions(options: readonly string[], query: string): string[] {
  const q = query.trim().toLowerCase();
  if (!q) return [...options];
  const exact: string[] = [];
  const prefix: string[] = [];
  const inner: string[] = [];
  for (const option of options) {
    const o = option.toLowerCase();
    if (o === q) exact.push(option);
    else if (o.startsWith(q)) prefix.push(option);
    else if (o.includes(q)) inner.push(option);
  }
  return [...exact, ...prefix, ...inner];
}

let nextId = 0;

export function Combobox({ options, value, onChange, label, placeholder, testId }: ComboboxProps) {
  const [id] = useState(() => `rl-combobox-${nextId++}`);
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState("");
  const [active, setActive] = useState(0);
  const listRef = useRef<HTMLUListElement>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  // The list is placed on the screen (position: fixed) so that a toolbar scrolling sideways does not clip it.
  const [place, setPlace] = useState<{ top: number; left: number } | null>(null);
  useEffect(() => {
    if (!open) return;
    const measure = () => {
      const rect = inputRef.current?.getBoundingClientRect();
      if (rect) setPlace({ top: rect.bottom + 2, left: rect.left });
    };
    measure();
    window.addEventListener("scroll", measure, true);
    window.addEventListener("resize", measure);
    return () => {
      window.removeEventListener("scroll", measure, true);
      window.removeEventListener("resize", measure);
    };
  }, [open]);
  const matches = useMemo(() => (open ? matchOptions(options, query) : []), [open, options, query]);
  const shown = matches.slice(0, SHOWN);

  useEffect(() => {
    listRef.current?.querySelector<HTMLElement>(`#${id}-${active}`)?.scrollIntoView({ block: "nearest" });
  }, [active, open]);

  const choose = (option: string) => {
    setOpen(false);
    setQuery("");
    if (option !== value) onChange(option);
  };
  const close = () => {
    setOpen(false);
    setQuery("");
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      if (!open) {
        setOpen(true);
        setActive(0);
        return;
      }
      const step = e.key === "ArrowDown" ? 1 : -1;
      setActive((a) => Math.max(0, Math.min(shown.length - 1, a + step)));
    } else if (e.key === "Enter") {
      if (open && shown[active] !== undefined) {
        e.preventDefault();
        choose(shown[active]!);
      }
    } else if (e.key === "Escape") {
      if (open) {
        e.preventDefault();
        e.stopPropagation();
        close();
      }
    } else if (e.key === "Home" && open) {
      setActive(0);
    } else if (e.key === "End" && open) {
      setActive(Math.max(0, shown.length - 1));
    }
  };

  return (
    <span class="rl-combobox" data-testid={testId}>
      <input
        ref={inputRef}
        type="text"
        role="combobox"
        aria-label={label}
        aria-expanded={open}
        aria-controls={`${id}-list`}
        aria-autocomplete="list"
        aria-activedescendant={open && shown.length ? `${id}-${active}` : undefined}
        autocomplete="off"
        spellcheck={false}
        placeholder={placeholder ?? label}
        title={value || undefined}
        value={open ? query : value}
        onFocus={() => {
          setOpen(true);
          setQuery("");
          setActive(0);
        }}
        onClick={() => setOpen(true)}
        onInput={(e) => {
          setOpen(true);
          setQuery(e.currentTarget.value);
          setActive(0);
        }}
        onKeyDown={onKeyDown}
        onBlur={() => {
          // A name typed out in full counts as chosen; anything else leaves the choice as it was.
          if (open && query && options.includes(query)) choose(query);
          else close();
        }}
      />
      {open && (
        <ul
          class="rl-combobox-list"
          role="listbox"
          id={`${id}-list`}
          aria-label={label}
          ref={listRef}
          style={place ? { top: `${place.top}px`, left: `${place.left}px` } : undefined}
        >
          {shown.map((option, i) => (
            <li
              key={option}
              id={`${id}-${i}`}
              role="option"
              aria-selected={i === active}
              data-value={option}
              title={option}
              // Before the input's blur, which would close the list first.
              onMouseDown={(e) => {
                e.preventDefault();
                choose(option);
              }}
              onMouseMove={() => i !== active && setActive(i)}
            >
              {option}
            </li>
          ))}
          {matches.length === 0 && <li class="rl-combobox-none muted" role="presentation">
              Nothing matches “{query}”
            </li>}
          {matches.length > SHOWN && (
            <li class="rl-combobox-more muted" role="presentation">
              {matches.length - SHOWN} more: type to narrow
            </li>
          )}
        </ul>
      )}
    </span>
  );
}
