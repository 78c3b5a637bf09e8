/** The PR curves dashboard's registration with the shell (see web/src/app/types.ts). */
import type { DashboardEntry } from "@app/types";
import "uplot/dist/uPlot.min.css";
import "./pr_curves.css";

const dashboard: DashboardEntry = {
  name: "pr_curves",
  title: "PR Curves",
  order: 70,
  hasData: (runs) => runs.some((r) => (r.tags.pr_curves ?? []).length > 0),
  load: () => import("./PrCurvesDashboard").then((m) => m.PrCurvesDashboard),
};

export default dashboard;
