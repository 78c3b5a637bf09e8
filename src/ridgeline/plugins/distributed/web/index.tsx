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
  // Loaded once boot.js's run list and first chart are in too (when it asked): the page's first render then
  // draws the chart (main.tsx waits for the opened tab's code), rather than "Loading distributed runs…" first.
  load: () => import("./DistributedDashboard").then((m) => m.firstAnswerSettled.then(() => m.DistributedDashboard)),
};

export default dashboard;
