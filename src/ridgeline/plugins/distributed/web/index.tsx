/** The distributed dashboard's registration with the shell (see web/src/app/types.ts). */
import type { DashboardEntry } from "@app/types";
import "./distributed.css";

const RANK_RUN = /(^|\/)rank\d+$/;

const dashboard: DashboardEntry = {
  name: "distributed",
  title: "Distributed",
  order: 125,
  // Shown when the selection holds ranks of a distributed run (runs named .../rank{N}).
  hasData: (runs) => runs.some((r) => RANK_RUN.test(r.run)),
  load: () => import("./DistributedDashboard").then((m) => m.DistributedDashboard),
};

export default dashboard;
