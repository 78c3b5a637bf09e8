/** The UI's entry point: applies the theme before the first paint, then renders the shell. */
import { render } from "preact";
import { App } from "@app/App";
import { preloadDashboard } from "@app/dashboards";
import { settings } from "@app/state";
import { applyTheme, initialTheme } from "@app/theme";
import "./styles.css";

applyTheme(initialTheme());
// The opened tab's code, fetched while the run list is (App reads the same "tab" setting).
preloadDashboard(settings().get("tab", ""));
render(<App />, document.getElementById("app")!);
