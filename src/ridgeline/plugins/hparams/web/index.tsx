/** The hparams dashboard's registration with the shell (see web/src/app/types.ts). */
import type { Dashboard } from "@app/types";
import { HParamsDashboard } from "./HParamsDashboard";
import "./hparams.css";

const dashboard: Dashboard = {
  name: "hparams",
  title: "HParams",
  order: 90,
  // /api/runs lists a run that recorded hyperparameters (a session start) under the kind "hparams".
  hasData: (runs) => runs.some((r) => (r.tags.hparams ?? []).length > 0),
  component: HParamsDashboard,
};

export default dashboard;
