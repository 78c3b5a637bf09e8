/** The confusion matrix dashboard's registration with the shell (see web/src/app/types.ts). */
import type { Dashboard } from "@app/types";
import { ConfusionMatrixDashboard } from "./ConfusionMatrixDashboard";
import "./confusion_matrix.css";

const dashboard: Dashboard = {
  name: "confusion_matrix",
  title: "Confusion",
  order: 72,
  hasData: (runs) => runs.some((r) => (r.tags.confusion_matrices ?? []).length > 0),
  component: ConfusionMatrixDashboard,
};

export default dashboard;
