/** The images dashboard's registration with the shell (see web/src/app/types.ts). */
import type { Dashboard } from "@app/types";
import { ImagesDashboard } from "./ImagesDashboard";
import "@media/media.css";

const dashboard: Dashboard = {
  name: "images",
  title: "Images",
  order: 40,
  hasData: (runs) => runs.some((r) => (r.tags.images ?? []).length > 0),
  component: ImagesDashboard,
};

export default dashboard;
