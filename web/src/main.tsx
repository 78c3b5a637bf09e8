/**
 * The UI's entry point: applies the theme before the first paint, then renders the shell once the run list and
 * the opened tab's code are in (both requested by boot.js while this script loaded), so the first render is
 * the page itself rather than "Loading runs…" and two more renders as each arrives; at most FIRST_RENDER_WAIT_MS
 * after this script runs, whatever has arrived.
 */
import { render } from "preact";
import { takePrefetched } from "@api/client";
import type { RunsResponse } from "@api/types";
import { App } from "@app/App";
import { preloadDashboard } from "@app/dashboards";
import { settings } from "@app/state";
import { applyTheme, initialTheme } from "@app/theme";
import { primeRuns } from "@app/useRuns";
import "./styles.css";

const FIRST_RENDER_WAIT_MS = 1500;

applyTheme(initialTheme());
// The opened tab's code, fetched while the run list is (App reads the same "tab" setting).
const code = preloadDashboard(settings().get("tab", ""));
const runs = takePrefetched<RunsResponse>("api/runs");
const arrived = Promise.all([code, runs ? primeRuns(runs) : undefined]);
let rendered = false;
const show = () => {
  if (rendered) return;
  rendered = true;
  render(<App />, document.getElementById("app")!);
};
void arrived.then(show);
setTimeout(show, FIRST_RENDER_WAIT_MS);
