/** The projector dashboard's registration with the shell (see web/src/app/types.ts). */
import type { Dashboard } from "@app/types";
import { ProjectorDashboard } from "./ProjectorDashboard";
import "./projector.css";

const dashboard: Dashboard = {
  name: "projector",
  title: "Projector",
  order: 100,
  // /api/runs lists each run's embedding tags under the kind "projector" (from its projector config).
  hasData: (runs) => runs.some((r) => (r.tags.projector ?? []).length > 0),
  component: ProjectorDashboard,
};

export default dashboard;
