// Runs before the app's module, as a plain script of its own (the Content-Security-Policy allows no inline
// script): the theme from the first frame, and the run list requested at once.
// The theme from the first frame, before the app's module loads (app/theme.ts applies the same rule after).
(function () {
  var t = null;
  try {
    t = new URLSearchParams(location.search).get("theme") || localStorage.getItem("ridgeline.theme");
  } catch (e) {}
  if (t !== "light" && t !== "dark") t = matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  document.documentElement.dataset.theme = t;
})();
// The run list, requested now rather than after the app's script has loaded and rendered once
// (client.ts takePrefetched hands this answer to the first /api/runs poll).
try {
  var runs = fetch("api/runs", { headers: { Accept: "application/json" } });
  runs.catch(function () {}); // a failure is reported by the app when it reads this, not as unhandled
  window.__ridgelinePrefetch = { "api/runs": runs };
  // The distributed dashboard's run list with its first chart's series, in parallel with the run list when the
  // URL opens that tab (src/ridgeline/plugins/distributed/web/firstAnswer.ts takes it).
  var query = new URLSearchParams(location.search);
  if (query.get("tab") === "distributed") {
    // The series reduced to about one step per device pixel of the window (the chart is narrower): the first paint
    // needs no more, and the chart asks for every step once drawn (model.ts firstChartPoints: the same figure).
    var points = Math.min(20000, Math.max(64, Math.round(innerWidth * (devicePixelRatio || 1))));
    var asked = "api/distributed/runs?first_chart=" + encodeURIComponent(query.get("dist.run") || "");
    var first = fetch(asked + "&first_chart_points=" + points, {
      headers: { Accept: "application/json" },
    });
    first.catch(function () {});
    window.__ridgelinePrefetch["api/distributed/runs"] = first;
  }
} catch (e) {}
// The code of the tab the page opens on (the URL's, else the remembered one), fetched now in parallel with the
// shell's: each dashboard is a chunk of its own that the shell would import only once it has run. The build
// writes each dashboard's chunk files below (vite.config.ts, dashboardChunks); `npm run dev` leaves it empty.
try {
  var chunks = /*dashboard-chunks*/{};
  var tab = new URLSearchParams(location.search).get("tab");
  if (tab === null) tab = localStorage.getItem("ridgeline.tab");
  (chunks[tab || ""] || []).forEach(function (file) {
    var link = document.createElement("link");
    link.rel = "modulepreload";
    link.crossOrigin = ""; // as Vite's own preloads, so that the import() finds the module fetched
    link.href = file;
    document.head.appendChild(link);
  });
} catch (e) {}
