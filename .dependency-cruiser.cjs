/**
 * The web UI's layer rules, checked by dependency-cruiser in `make lint` and `make test`
 * (tests/web/test_import_rules.py): the TypeScript half of the import contracts in ARCHITECTURE.md.
 *
 * - A dashboard (src/ridgeline/plugins/<name>/web/) imports only its own folder, the shell's library in web/src/
 *   and npm packages: never another dashboard, never the shell's own wiring (main.tsx, App, the top bar, the run
 *   selector, the search box, the dashboard discovery).
 * - The shell (web/src/) never imports a dashboard: it finds them with import.meta.glob (app/dashboards.ts),
 *   which is no import. Its library (charts/, media/, api/, testHooks.ts) does not import the shell's wiring.
 *
 * Type-only imports count (tsPreCompilationDeps): a type borrowed from another dashboard is a dependency too.
 */

/** What a dashboard may use of web/src/app/: the dashboard contract, URL state, colours, selection, tag cards,
 * filters, sanitised Markdown, a run's status badge, the searchable picker and the foldable settings bar. The rest
 * of app/ (and main.tsx) is the shell's wiring. */
const APP_LIBRARY =
  "^web/src/app/(types|state|palette|selection|cards|filters|MiddleEllipsis|markdown|StatusBadge|Combobox|SettingsBar)\\.tsx?$";
const SHELL_WIRING = "^web/src/(main\\.tsx|app/)";
const SHELL_LIBRARY = "^web/src/(charts|media|api)/|^web/src/testHooks\\.ts$";
const DASHBOARD = "^src/ridgeline/plugins/([^/]+)/web/";

/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "dashboard-imports-another-dashboard",
      comment:
        "A dashboard imports only its own folder, web/src/ and npm packages. What two dashboards share belongs in " +
        "the shell's library (web/src/charts, web/src/media, web/src/api); an extension point is a registry there.",
      severity: "error",
      from: { path: DASHBOARD },
      to: { path: "^src/ridgeline/plugins/", pathNot: "^src/ridgeline/plugins/$1/web/" },
    },
    {
      name: "dashboard-imports-outside-its-layer",
      comment: "A dashboard imports only its own folder, web/src/ and npm packages (not Python's folders, tests, ...).",
      severity: "error",
      from: { path: DASHBOARD },
      // Other dashboards are the rule above's, unresolvable imports the last rule's.
      to: { pathNot: ["^src/ridgeline/plugins/", "^web/src/", "(^|/)node_modules/"], couldNotResolve: false },
    },
    {
      name: "dashboard-imports-the-shell-wiring",
      comment: `A dashboard builds on the shell's library, not on the shell itself: of web/src/app/ only ${APP_LIBRARY}.`,
      severity: "error",
      from: { path: DASHBOARD },
      to: { path: SHELL_WIRING, pathNot: APP_LIBRARY },
    },
    {
      name: "shell-imports-a-dashboard",
      comment: "The shell finds dashboards with import.meta.glob (web/src/app/dashboards.ts) and imports none.",
      severity: "error",
      from: { path: "^web/" },
      to: { path: "^src/ridgeline/plugins/" },
    },
    {
      name: "library-imports-the-shell-wiring",
      comment: "The shell's library (charts, media, api, testHooks) is what dashboards build on: it does not import the shell.",
      severity: "error",
      from: { path: SHELL_LIBRARY },
      to: { path: SHELL_WIRING, pathNot: APP_LIBRARY },
    },
    {
      name: "not-to-unresolvable",
      comment: "An import that resolves to no file or package (a typo, or a moved module): the rules above cannot check it.",
      severity: "error",
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: "(^|/)node_modules/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    // Vite's asset queries (elkjs' worker as `?url`) name the file before the query.
    enhancedResolveOptions: {
      extensions: [".ts", ".tsx", ".js", ".mjs", ".json"],
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
    },
  },
};
