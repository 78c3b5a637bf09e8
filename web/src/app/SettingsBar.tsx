/**
 * The settings bar at the top of a dashboard (Scalars, Time Series, Histograms, …): sticky, so its controls stay
 * at hand while scrolling, and foldable to one line so that it does not take 100–180 px of an 800 px screen.
 *
 * Folded, the controls stay on one line that scrolls sideways (every control is still there, the first ones in
 * view); unfolded they wrap onto as many lines as they need. The bar starts folded on short screens (a window at
 * most {@link SHORT_SCREEN} px high) and unfolded on taller ones; once the user folds or unfolds it, every
 * dashboard's bar follows that choice, remembered in localStorage (a layout preference of this browser, so not
 * in shared links).
 */
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { STORAGE_PREFIX } from "./state";
import "./settingsBar.css";

/** A window this high or lower starts with the settings folded to one line. */
export const SHORT_SCREEN = 800;
const KEY = `${STORAGE_PREFIX}settingsOpen`;
const listeners = new Set<(open: boolean) => void>();

function storedOpen(): boolean {
  try {
    const raw = window.localStorage.getItem(KEY);
    if (raw === "1" || raw === "0") return raw === "1";
  } catch {
    // Storage forbidden (private mode): the screen's height decides.
  }
  return window.innerHeight > SHORT_SCREEN;
}

function storeOpen(open: boolean): void {
  try {
    window.localStorage.setItem(KEY, open ? "1" : "0");
  } catch {
    // The choice lasts for this page.
  }
  for (const listener of listeners) listener(open);
}

/** Whether settings bars are unfolded, shared by every dashboard's bar. */
export function useSettingsOpen(): [boolean, (open: boolean) => void] {
  const [open, setOpen] = useState(storedOpen);
  useEffect(() => {
    listeners.add(setOpen);
    return () => void listeners.delete(setOpen);
  }, []);
  return [open, storeOpen];
}

let nextId = 0;

export interface SettingsBarProps {
  /** The toolbar's accessible name ("Scalar chart settings"). */
  label: string;
  children: ComponentChildren;
}

export function SettingsBar({ label, children }: SettingsBarProps) {
  const [open, setOpen] = useSettingsOpen();
  const [id] = useState(() => `rl-settings-${nextId++}`);
  return (
    <div class="rl-settings" data-testid="settings-bar" data-open={open ? "true" : "false"}>
      <button
        type="button"
        class="rl-settings-toggle"
        data-testid="settings-toggle"
        aria-expanded={open}
        aria-controls={id}
        aria-label={open ? "Fold the settings to one line" : "Show every setting"}
        title={open ? "Fold the settings to one line" : "Show every setting (folded: scroll the line sideways)"}
        onClick={() => setOpen(!open)}
      >
        <span aria-hidden="true">{open ? "▴" : "▾"}</span>
      </button>
      <div class="rl-toolbar" role="toolbar" aria-label={label} id={id}>
        {children}
      </div>
    </div>
  );
}
