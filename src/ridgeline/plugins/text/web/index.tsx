/** The text dashboard's registration with the shell (see web/src/app/types.ts). */
import type { Dashboard } from "@app/types";
import { TextDashboard } from "./TextDashboard";
import "./text.css";

const dashboard: Dashboard = {
  name: "text",
  title: "Text",
  order: 60,
  hasData: (runs) => runs.some((r) => (r.tags.text ?? []).length > 0),
  component: TextDashboard,
};

export default dashboard;
