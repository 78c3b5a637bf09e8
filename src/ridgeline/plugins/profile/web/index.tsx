/** The profile dashboard's registration with the shell (see web/src/app/types.ts). */
import type { Dashboard } from "@app/types";
import { ProfileDashboard, runsWithTraces } from "./ProfileDashboard";
import "./profile.css";

const dashboard: Dashboard = {
  name: "profile",
  title: "Profile",
  order: 115,
  // Traces are files beside the event files, not tags: the tab shows until the server said no selected run has one.
  hasData: (runs) => {
    const known = runsWithTraces();
    return known === null || runs.some((r) => known.has(r.run));
  },
  component: ProfileDashboard,
};

export default dashboard;
