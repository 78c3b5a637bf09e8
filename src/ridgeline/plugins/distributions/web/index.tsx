/** The distributions dashboard's registration with the shell (see web/src/app/types.ts). */
import type { DashboardEntry } from "@app/types";

const dashboard: DashboardEntry = {
  name: "distributions",
  title: "Distributions",
  order: 30,
  hasData: (runs) => runs.some((r) => (r.tags.histograms ?? []).length > 0),
  load: () => import("./DistributionsDashboard").then((m) => m.DistributionsDashboard),
};

export default dashboard;
