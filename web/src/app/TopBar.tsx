/** The top bar: the dashboards with data in the log directory as tabs (dimmed when the selected runs have none), the search box, then a notice, the reload controls and the theme toggle. */
import type { ComponentChildren } from "preact";
import type { Dashboard } from "./types";
import type { Theme } from "./theme";

export interface TopBarProps {
  dashboards: readonly Dashboard[];
  /** The dashboards that have data for the selected runs (the others' tabs stay, dimmed). */
  withData?: ReadonlySet<string>;
  active: string | null;
  onSelect(name: string): void;
  logdir: string | undefined;
  reloading: boolean;
  onReload(): void;
  autoReload: boolean;
  interval: number;
  onAutoReload(on: boolean): void;
  theme: Theme;
  onToggleTheme(): void;
  /** The global search box (rendered between the tabs and the tools). */
  search?: ComponentChildren;
  /** A notice shown first among the tools (the retention status). */
  notice?: ComponentChildren;
}

/** ←/→ (Home/End) move the focus along the tab bar; Enter or Space opens the focused tab. */
function moveAlongTabs(e: KeyboardEvent): void {
  const tabs = [...(e.currentTarget as HTMLElement).querySelectorAll<HTMLButtonElement>("button.tab")];
  const at = tabs.indexOf(document.activeElement as HTMLButtonElement);
  if (at < 0 || tabs.length === 0) return;
  const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: tabs.length - 1 }[e.key];
  if (to === undefined) return;
  e.preventDefault();
  tabs[(to + tabs.length) % tabs.length]!.focus();
}

export function TopBar(props: TopBarProps) {
  const next = props.theme === "dark" ? "light" : "dark";
  return (
    <header class="topbar">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <span class="brand">
        <svg viewBox="0 0 16 16" width="18" height="18" aria-hidden="true">
          <path d="M1 13 L5 6 L8 10 L11 3 L15 13" fill="none" stroke="currentColor" stroke-width="2" />
        </svg>
        ridgeline
      </span>
      <nav aria-label="Dashboards" class="tabs" onKeyDown={moveAlongTabs}>
        {props.dashboards.map((d) => (
          <button
            type="button"
            key={d.name}
            class="tab"
            data-dashboard={d.name}
            data-empty={props.withData && !props.withData.has(d.name) ? "true" : undefined}
            title={props.withData && !props.withData.has(d.name) ? `${d.title}: no data in the selected runs` : undefined}
            aria-current={props.active === d.name ? "page" : undefined}
            onClick={() => props.onSelect(d.name)}
          >
            {d.title}
          </button>
        ))}
      </nav>
      {props.search}
      <div class="topbar-tools">
        {props.notice}
        {props.logdir && (
          <span class="logdir muted" title={`Log directory: ${props.logdir}`}>
            <bdi>{props.logdir}</bdi>
          </span>
        )}
        <button
          type="button"
          class="icon-button"
          data-testid="reload"
          onClick={props.onReload}
          aria-label="Reload now"
          title="Reload now"
          aria-busy={props.reloading ? "true" : "false"}
        >
          <svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" class={props.reloading ? "spin" : undefined}>
            <path d="M13.5 8a5.5 5.5 0 1 1-1.6-3.9M13.5 2.5v3h-3" fill="none" stroke="currentColor" stroke-width="1.6" />
          </svg>
        </button>
        <label class="toggle" title={`Fetch new data every ${props.interval} s`}>
          <input
            type="checkbox"
            role="switch"
            data-testid="auto-reload"
            checked={props.autoReload}
            onChange={(e) => props.onAutoReload((e.currentTarget as HTMLInputElement).checked)}
          />
          Auto-reload
        </label>
        <button
          type="button"
          class="icon-button"
          data-testid="theme"
          onClick={props.onToggleTheme}
          aria-label={`Switch to ${next} theme`}
          title={`Switch to ${next} theme`}
        >
          {props.theme === "dark" ? (
            <svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true">
              <circle cx="8" cy="8" r="3" fill="currentColor" />
              <path d="M8 1v2M8 13v2M1 8h2M13 8h2M3 3l1.4 1.4M11.6 11.6L13 13M3 13l1.4-1.4M11.6 4.4L13 3" stroke="currentColor" stroke-width="1.4" />
            </svg>
          ) : (
            <svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true">
              <path d="M13 10.5A5.5 5.5 0 0 1 5.5 3a5.5 5.5 0 1 0 7.5 7.5z" fill="currentColor" />
            </svg>
          )}
        </button>
      </div>
    </header>
  );
}
