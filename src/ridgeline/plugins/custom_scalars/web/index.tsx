/** The custom scalars dashboard's registration with the shell (see web/src/app/types.ts). */
import type { Dashboard } from "@app/types";
import { CustomScalarsDashboard } from "./CustomScalarsDashboard";
import "./custom_scalars.css";

const dashboard: Dashboard = {
  name: "custom_scalars",
  title: "Custom scalars",
  order: 80,
  // /api/runs lists a run's layout under the kind "custom_scalars" (the tag custom_scalars__config__).
  hasData: (runs) => runs.some((r) => (r.tags.custom_scalars ?? []).length > 0),
  component: CustomScalarsDashboard,
};

export default dashboard;
