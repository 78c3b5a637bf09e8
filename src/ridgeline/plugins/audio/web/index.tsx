/** The audio dashboard's registration with the shell (see web/src/app/types.ts). */
import type { DashboardEntry } from "@app/types";
import "@media/media.css";

const dashboard: DashboardEntry = {
  name: "audio",
  title: "Audio",
  order: 50,
  hasData: (runs) => runs.some((r) => (r.tags.audio ?? []).length > 0),
  load: () => import("./AudioDashboard").then((m) => m.AudioDashboard),
};

export default dashboard;
