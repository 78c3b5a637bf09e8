/** The insights dashboard's registration with the shell (see web/src/app/types.ts). */
import type { Dashboard } from "@app/types";
import { registerCardOverlay } from "@charts/overlays";
import { InsightsDashboard } from "./InsightsDashboard";
import { useInsightsCardOverlay } from "./overlay";
import "./insights.css";

// Alert markers, phases and forecasts on every scalar card (the scalars and time series dashboards').
registerCardOverlay("insights", useInsightsCardOverlay);

const dashboard: Dashboard = {
  name: "insights",
  title: "Insights",
  // Right after the scalars it reads.
  order: 5,
  hasData: (runs) => runs.some((r) => (r.tags.scalars ?? []).length > 0),
  component: InsightsDashboard,
};

export default dashboard;
