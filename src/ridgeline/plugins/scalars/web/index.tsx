/** The scalars dashboard's registration with the shell (see web/src/app/types.ts). */
import type { Dashboard } from "@app/types";
import { ScalarsDashboard } from "./ScalarsDashboard";
import "./scalars.css";

const dashboard: Dashboard = {
  name: "scalars",
  title: "Scalars",
  order: 0,
  hasData: (runs) => runs.some((r) => (r.tags.scalars ?? []).length > 0),
  component: ScalarsDashboard,
};

export default dashboard;
