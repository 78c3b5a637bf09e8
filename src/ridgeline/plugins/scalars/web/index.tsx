/** The scalars dashboard's registration with the shell (see web/src/app/types.ts). */
import type { DashboardEntry } from "@app/types";
import "./scalars.css";

const dashboard: DashboardEntry = {
  name: "scalars",
  title: "Scalars",
  order: 0,
  hasData: (runs) => runs.some((r) => (r.tags.scalars ?? []).length > 0),
  load: () => import("./ScalarsDashboard").then((m) => m.ScalarsDashboard),
};

export default dashboard;
