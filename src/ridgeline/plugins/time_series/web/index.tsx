/**
 * The Time Series dashboard's registration with the shell (see web/src/app/types.ts). Web only: its cards read
 * the scalars, histograms and images routes. The last tab for now: the shell opens on the first tab with data,
 * and every other dashboard (and its tests and benchmarks) expects to be that one for its own kind of data.
 * TensorBoard opens on Time Series; making it the default is the shell's call.
 */
import type { DashboardEntry } from "@app/types";
import "./time_series.css";

const dashboard: DashboardEntry = {
  name: "time_series",
  title: "Time Series",
  order: 95,
  hasData: (runs) => runs.some((r) => ["scalars", "histograms", "images"].some((k) => (r.tags[k] ?? []).length > 0)),
  load: () => import("./TimeSeriesDashboard").then((m) => m.TimeSeriesDashboard),
};

export default dashboard;
