/** The UI's entry point: applies the theme before the first paint, then renders the shell. */
import { render } from "preact";
import { App } from "@app/App";
import { applyTheme, initialTheme } from "@app/theme";
import "./styles.css";

applyTheme(initialTheme());
render(<App />, document.getElementById("app")!);
