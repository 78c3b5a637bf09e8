/** The text dashboard's registration with the shell (see web/src/app/types.ts). */
import type { DashboardEntry } from "@app/types";
import "./text.css";

const dashboard: DashboardEntry = {
  name: "text",
  title: "Text",
  order: 60,
  hasData: (runs) => runs.some((r) => (r.tags.text ?? []).length > 0),
  load: () => import("./TextDashboard").then((m) => m.TextDashboard),
};

export default dashboard;
