/** The graphs dashboard's registration with the shell (see web/src/app/types.ts). */
import type { DashboardEntry } from "@app/types";
import "./graphs.css";

const dashboard: DashboardEntry = {
  name: "graphs",
  title: "Graphs",
  order: 45,
  hasData: (runs) => runs.some((r) => (r.tags.graphs ?? []).length > 0),
  load: () => import("./GraphsDashboard").then((m) => m.GraphsDashboard),
};

export default dashboard;
