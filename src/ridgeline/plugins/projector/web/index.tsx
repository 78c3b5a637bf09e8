/** The projector dashboard's registration with the shell (see web/src/app/types.ts). */
import type { DashboardEntry } from "@app/types";
import "./projector.css";

const dashboard: DashboardEntry = {
  name: "projector",
  title: "Projector",
  order: 100,
  // /api/runs lists each run's embedding tags under the kind "projector" (from its projector config).
  hasData: (runs) => runs.some((r) => (r.tags.projector ?? []).length > 0),
  load: () => import("./ProjectorDashboard").then((m) => m.ProjectorDashboard),
};

export default dashboard;
