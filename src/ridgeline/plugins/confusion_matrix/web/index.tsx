/** The confusion matrix dashboard's registration with the shell (see web/src/app/types.ts). */
import type { DashboardEntry } from "@app/types";
import "./confusion_matrix.css";

const dashboard: DashboardEntry = {
  name: "confusion_matrix",
  title: "Confusion",
  order: 72,
  hasData: (runs) => runs.some((r) => (r.tags.confusion_matrices ?? []).length > 0),
  load: () => import("./ConfusionMatrixDashboard").then((m) => m.ConfusionMatrixDashboard),
};

export default dashboard;
