/** The histograms dashboard's registration with the shell (see web/src/app/types.ts). */
import type { Dashboard } from "@app/types";
import { HistogramsDashboard } from "./HistogramsDashboard";

const dashboard: Dashboard = {
  name: "histograms",
  title: "Histograms",
  order: 32,
  hasData: (runs) => runs.some((r) => (r.tags.histograms ?? []).length > 0),
  component: HistogramsDashboard,
};

export default dashboard;
