/** The Runs dashboard's registration with the shell (see web/src/app/types.ts). */
import type { Dashboard } from "@app/types";
import { RunsDashboard } from "./RunsDashboard";
import "./runs.css";

const dashboard: Dashboard = {
  name: "runs",
  title: "Runs",
  order: 92,
  hasData: (runs) => runs.length > 0,
  component: RunsDashboard,
};

export default dashboard;
