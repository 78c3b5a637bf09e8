/** The histograms dashboard's registration with the shell (see web/src/app/types.ts). */
import type { DashboardEntry } from "@app/types";

const dashboard: DashboardEntry = {
  name: "histograms",
  title: "Histograms",
  order: 32,
  hasData: (runs) => runs.some((r) => (r.tags.histograms ?? []).length > 0),
  load: () => import("./HistogramsDashboard").then((m) => m.HistogramsDashboard),
};

export default dashboard;
