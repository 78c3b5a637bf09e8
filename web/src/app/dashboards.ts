/**
 * The dashboards built into this UI, found at build time: every plugin folder with a `web/index.ts(x)` that
 * default-exports a {@link Dashboard}. Adding a dashboard means adding that file; the shell needs no edit.
 */
import type { Dashboard } from "./types";

type DashboardModule = { default?: Dashboard };

const modules = import.meta.glob<DashboardModule>(
  ["../../../src/ridgeline/plugins/*/web/index.ts", "../../../src/ridgeline/plugins/*/web/index.tsx"],
  { eager: true },
);

/** The dashboards in top-bar order (then by name); modules without a valid default export are skipped. */
export function sortDashboards(found: Iterable<Dashboard | undefined>): Dashboard[] {
  const valid = [...found].filter(
    (d): d is Dashboard => !!d && typeof d.name === "string" && typeof d.hasData === "function" && !!d.component,
  );
  return valid.sort((a, b) => a.order - b.order || a.name.localeCompare(b.name));
}

export const DASHBOARDS: readonly Dashboard[] = sortDashboards(Object.values(modules).map((m) => m.default));
