/** The PR curves dashboard's registration with the shell (see web/src/app/types.ts). */
import type { Dashboard } from "@app/types";
import { PrCurvesDashboard } from "./PrCurvesDashboard";
import "./pr_curves.css";

const dashboard: Dashboard = {
  name: "pr_curves",
  title: "PR Curves",
  order: 70,
  hasData: (runs) => runs.some((r) => (r.tags.pr_curves ?? []).length > 0),
  component: PrCurvesDashboard,
};

export default dashboard;
