/** The custom scalars dashboard's registration with the shell (see web/src/app/types.ts). */
import type { DashboardEntry } from "@app/types";
import "./custom_scalars.css";

const dashboard: DashboardEntry = {
  name: "custom_scalars",
  title: "Custom scalars",
  order: 80,
  // /api/runs lists a run's layout under the kind "custom_scalars" (the tag custom_scalars__config__).
  hasData: (runs) => runs.some((r) => (r.tags.custom_scalars ?? []).length > 0),
  load: () => import("./CustomScalarsDashboard").then((m) => m.CustomScalarsDashboard),
};

export default dashboard;
