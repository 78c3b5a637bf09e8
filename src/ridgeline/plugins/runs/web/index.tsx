/** The Runs dashboard's registration with the shell (see web/src/app/types.ts). */
import type { DashboardEntry } from "@app/types";
import "./runs.css";

const dashboard: DashboardEntry = {
  name: "runs",
  title: "Runs",
  order: 92,
  hasData: (runs) => runs.length > 0,
  load: () => import("./RunsDashboard").then((m) => m.RunsDashboard),
};

export default dashboard;
