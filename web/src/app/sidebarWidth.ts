/**
 * The run list's width: 260 px at first, then what the user dragged it to, remembered in localStorage (a layout
 * preference of this browser, so not in shared links).
 */
import { useCallback, useState } from "preact/hooks";
import { STORAGE_PREFIX } from "./state";

export const DEFAULT_SIDEBAR_WIDTH = 260;
export const MIN_SIDEBAR_WIDTH = 180;
const KEY = `${STORAGE_PREFIX}sidebarWidth`;

/** The widest the run list may be: most of the window, leaving the dashboard 360 px. */
export function maxSidebarWidth(windowWidth: number): number {
  return Math.max(MIN_SIDEBAR_WIDTH, windowWidth - 360);
}

export function clampSidebarWidth(width: number, windowWidth: number): number {
  if (!Number.isFinite(width)) return DEFAULT_SIDEBAR_WIDTH;
  return Math.round(Math.min(maxSidebarWidth(windowWidth), Math.max(MIN_SIDEBAR_WIDTH, width)));
}

function stored(): number {
  try {
    const raw = window.localStorage.getItem(KEY);
    return raw === null ? DEFAULT_SIDEBAR_WIDTH : clampSidebarWidth(Number(raw), window.innerWidth);
  } catch {
    return DEFAULT_SIDEBAR_WIDTH;
  }
}

export function useSidebarWidth(): [number, (width: number) => void] {
  const [width, setWidth] = useState(stored);
  const set = useCallback((next: number) => {
    const clamped = clampSidebarWidth(next, window.innerWidth);
    setWidth(clamped);
    try {
      if (clamped === DEFAULT_SIDEBAR_WIDTH) window.localStorage.removeItem(KEY);
      else window.localStorage.setItem(KEY, String(clamped));
    } catch {
      // Storage forbidden (private mode): the width lasts for this page.
    }
  }, []);
  return [width, set];
}
