/**
 * The dashboards built into this UI, found at build time: every plugin folder with a `web/index.ts(x)` that
 * default-exports a {@link DashboardEntry} (or a {@link Dashboard} with its component). Adding a dashboard means
 * adding that file; the shell needs no edit. The index modules are in the shell's bundle; each component is a
 * chunk of its own, loaded when its tab is first shown (./lazyDashboard.tsx).
 */
import { lazyDashboard } from "./lazyDashboard";
import type { Dashboard, DashboardEntry } from "./types";

type DashboardModule = { default?: Dashboard | DashboardEntry };

const modules = import.meta.glob<DashboardModule>(
  ["../../../src/ridgeline/plugins/*/web/index.ts", "../../../src/ridgeline/plugins/*/web/index.tsx"],
  { eager: true },
);

function isEntry(found: Dashboard | DashboardEntry): found is DashboardEntry {
  return typeof (found as Partial<DashboardEntry>).load === "function" && !(found as Partial<Dashboard>).component;
}

/** A module's export as a {@link Dashboard}: an entry's component loads on demand. */
export function builtInDashboard(found: Dashboard | DashboardEntry | undefined): Dashboard | undefined {
  return found && isEntry(found) ? lazyDashboard(found) : found;
}

/** The dashboards in top-bar order (then by name); modules without a valid default export are skipped. */
export function sortDashboards(found: Iterable<Dashboard | undefined>): Dashboard[] {
  const valid = [...found].filter(
    (d): d is Dashboard => !!d && typeof d.name === "string" && typeof d.hasData === "function" && !!d.component,
  );
  return valid.sort((a, b) => a.order - b.order || a.name.localeCompare(b.name));
}

export const DASHBOARDS: readonly Dashboard[] = sortDashboards(Object.values(modules).map((m) => builtInDashboard(m.default)));

/**
 * Starts loading the code of the dashboard the page is likely to open: the one named `tab` (the URL's or the
 * remembered one), else the first in the top bar (what the shell opens when it has data). Called before the
 * first render, so the chunk arrives while the run list is being fetched. Settles (never rejects) once loaded
 * or failed.
 */
export function preloadDashboard(tab: string, dashboards: readonly Dashboard[] = DASHBOARDS): Promise<unknown> {
  const dashboard = dashboards.find((d) => d.name === tab) ?? (tab === "" ? dashboards[0] : undefined);
  return dashboard?.preload?.().catch(() => undefined) ?? Promise.resolve(); // a failure: shown by its tab
}
