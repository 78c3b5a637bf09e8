/** The hparams dashboard's registration with the shell (see web/src/app/types.ts). */
import type { DashboardEntry } from "@app/types";
import "./hparams.css";

const dashboard: DashboardEntry = {
  name: "hparams",
  title: "HParams",
  order: 90,
  // /api/runs lists a run that recorded hyperparameters (a session start) under the kind "hparams".
  hasData: (runs) => runs.some((r) => (r.tags.hparams ?? []).length > 0),
  load: () => import("./HParamsDashboard").then((m) => m.HParamsDashboard),
};

export default dashboard;
