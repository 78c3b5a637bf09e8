/** The audio dashboard's registration with the shell (see web/src/app/types.ts). */
import type { Dashboard } from "@app/types";
import { AudioDashboard } from "./AudioDashboard";
import "@media/media.css";

const dashboard: Dashboard = {
  name: "audio",
  title: "Audio",
  order: 50,
  hasData: (runs) => runs.some((r) => (r.tags.audio ?? []).length > 0),
  component: AudioDashboard,
};

export default dashboard;
