/** The insights dashboard's registration with the shell (see web/src/app/types.ts). */
import type { DashboardEntry } from "@app/types";
import { registerCardOverlay } from "@charts/overlays";
import { useInsightsCardOverlay } from "./overlay";
import "./insights.css";

// Alert markers, phases and forecasts on every scalar card (the scalars and time series dashboards').
registerCardOverlay("insights", useInsightsCardOverlay);

const dashboard: DashboardEntry = {
  name: "insights",
  title: "Insights",
  // Right after the scalars it reads.
  order: 5,
  hasData: (runs) => runs.some((r) => (r.tags.scalars ?? []).length > 0),
  load: () => import("./InsightsDashboard").then((m) => m.InsightsDashboard),
};

export default dashboard;
