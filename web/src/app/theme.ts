/**
 * Light and dark themes: CSS variables on `<html data-theme>` (see styles.css). The default follows the
 * system's `prefers-color-scheme`; the toggle stores an explicit choice only when it differs from the system's.
 */
import { useEffect, useState } from "preact/hooks";
import { settings } from "./state";

export type Theme = "light" | "dark";
export type ThemeSetting = "auto" | Theme;

export const THEME_KEY = "theme";

const query = () => (typeof window !== "undefined" && window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null);

export function systemTheme(): Theme {
  return query()?.matches ? "dark" : "light";
}

export function resolveTheme(setting: ThemeSetting, system: Theme): Theme {
  return setting === "auto" ? system : setting;
}

/** The theme to paint before the app renders (no flash of the wrong theme). */
export function initialTheme(): Theme {
  const setting = settings().get<string>(THEME_KEY, "auto");
  return resolveTheme(setting === "light" || setting === "dark" ? setting : "auto", systemTheme());
}

export function applyTheme(theme: Theme): void {
  document.documentElement.dataset.theme = theme;
  document.documentElement.style.colorScheme = theme;
}

/** The system theme, updated when the user changes it. */
export function useSystemTheme(): Theme {
  const [theme, setTheme] = useState<Theme>(systemTheme);
  useEffect(() => {
    const q = query();
    if (!q) return;
    const onChange = () => setTheme(q.matches ? "dark" : "light");
    q.addEventListener("change", onChange);
    return () => q.removeEventListener("change", onChange);
  }, []);
  return theme;
}
