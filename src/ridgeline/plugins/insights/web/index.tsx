/** The insights dashboard's registration with the shell (see web/src/app/types.ts). */
import type { Dashboard } from "@app/types";
import { InsightsDashboard } from "./InsightsDashboard";
import "./insights.css";

const dashboard: Dashboard = {
  name: "insights",
  title: "Insights",
  // Right after the scalars it reads.
  order: 5,
  hasData: (runs) => runs.some((r) => (r.tags.scalars ?? []).length > 0),
  component: InsightsDashboard,
};

export default dashboard;
