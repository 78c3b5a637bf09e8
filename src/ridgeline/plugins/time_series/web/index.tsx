/**
 * The Time Series dashboard's registration with the shell (see web/src/app/types.ts). Web only: its cards read
 * the scalars, histograms and images routes. The last tab for now: the shell opens on the first tab with data,
 * and every other dashboard (and its tests and benchmarks) expects to be that one for its own kind of data.
 * TensorBoard opens on Time Series; making it the default is the shell's call.
 */
import type { Dashboard } from "@app/types";
import { TimeSeriesDashboard } from "./TimeSeriesDashboard";
import "./time_series.css";

const dashboard: Dashboard = {
  name: "time_series",
  title: "Time Series",
  order: 95,
  hasData: (runs) => runs.some((r) => ["scalars", "histograms", "images"].some((k) => (r.tags[k] ?? []).length > 0)),
  component: TimeSeriesDashboard,
};

export default dashboard;
