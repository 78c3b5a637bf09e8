/** The images dashboard's registration with the shell (see web/src/app/types.ts). */
import type { DashboardEntry } from "@app/types";
import "@media/media.css";

const dashboard: DashboardEntry = {
  name: "images",
  title: "Images",
  order: 40,
  hasData: (runs) => runs.some((r) => (r.tags.images ?? []).length > 0),
  load: () => import("./ImagesDashboard").then((m) => m.ImagesDashboard),
};

export default dashboard;
