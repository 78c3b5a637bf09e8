/** The distributed dashboard's registration with the shell (see web/src/app/types.ts). */
import type { Dashboard } from "@app/types";
import { DistributedDashboard } from "./DistributedDashboard";
import "./distributed.css";

const RANK_RUN = /(^|\/)rank\d+$/;

const dashboard: Dashboard = {
  name: "distributed",
  title: "Distributed",
  order: 125,
  // Shown when the selection holds ranks of a distributed run (runs named .../rank{N}).
  hasData: (runs) => runs.some((r) => RANK_RUN.test(r.run)),
  component: DistributedDashboard,
};

export default dashboard;
