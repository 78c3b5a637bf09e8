/** The profile dashboard's registration with the shell (see web/src/app/types.ts). */
import type { DashboardEntry } from "@app/types";
import { registerCardOverlay } from "@charts/overlays";
import { useProfileCardOverlay } from "./overlay";
import "./profile.css";

// The profiled steps marked on every scalar card (the time series and scalars dashboards'), with their step times.
registerCardOverlay("profile", useProfileCardOverlay);

const dashboard: DashboardEntry = {
  name: "profile",
  title: "Profile",
  order: 115,
  // Traces are files beside the event files, not tags: /api/runs lists each run's trace files under the kind
  // "profile", so a log directory without traces has no Profile tab (none is shown while that is unknown).
  hasData: (runs) => runs.some((r) => (r.tags.profile ?? []).length > 0),
  load: () => import("./ProfileDashboard").then((m) => m.ProfileDashboard),
};

export default dashboard;
