/** The graphs dashboard's registration with the shell (see web/src/app/types.ts). */
import type { Dashboard } from "@app/types";
import { GraphsDashboard } from "./GraphsDashboard";
import "./graphs.css";

const dashboard: Dashboard = {
  name: "graphs",
  title: "Graphs",
  order: 45,
  hasData: (runs) => runs.some((r) => (r.tags.graphs ?? []).length > 0),
  component: GraphsDashboard,
};

export default dashboard;
