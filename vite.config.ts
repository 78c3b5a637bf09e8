/**
 * The web UI build: the shell in web/ and the dashboards in src/ridgeline/plugins/<name>/web/, bundled into
 * src/ridgeline/_static/ (git-ignored, shipped in the wheel, served by the Python server). `npm run dev` serves
 * the same UI with hot reload and proxies /api to a running `ridgeline serve` on 127.0.0.1:6006.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import preact from "@preact/preset-vite";
import type { Plugin } from "vite";
import { defineConfig } from "vitest/config";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

/** The shell entry's static imports, found by dashboardChunks once the module graph is known. */
const initial = new Set<string>();

/**
 * The shell's library code that only dashboards use (cards, the chart toolbar, tooltips, the settings bar...):
 * one chunk for all of it, not one per combination of dashboards that share a module: a tab's code is then a
 * few requests (the browser opens six connections per server), each dashboard's own code in a chunk of its own.
 */
const sharedByDashboards = (id: string) =>
  !initial.has(id) &&
  !/[\\/]app[\\/]markdown\.ts$/.test(id) && // marked and DOMPurify: only the text and Runs dashboards
  /[\\/]web[\\/]src[\\/]|[\\/]node_modules[\\/](uplot|preact|@preact)[\\/]/.test(id);

/** Where web/public/boot.js receives the dashboards' chunks (an empty map in `npm run dev`). */
const CHUNKS_PLACEHOLDER = "/*dashboard-chunks*/{}";

/**
 * Each built-in dashboard's component is a chunk of its own (web/src/app/lazyDashboard.tsx). This writes into
 * boot.js, per plugin folder (the dashboard's name), the files of that chunk and of the chunks it imports
 * statically, so boot.js can have the browser fetch the opened tab's code (`<link rel=modulepreload>`) in
 * parallel with the shell's instead of after the shell has run.
 */
function dashboardChunks(): Plugin {
  return {
    name: "ridgeline-dashboard-chunks",
    apply: "build",
    buildEnd() {
      // The modules the shell's entry imports statically (the rest: dashboards, and what only they use).
      initial.clear();
      const visit = (id: string) => {
        if (initial.has(id)) return;
        initial.add(id);
        const info = this.getModuleInfo(id);
        for (const next of info?.importedIds ?? []) visit(next);
      };
      for (const id of this.getModuleIds()) if (this.getModuleInfo(id)?.isEntry) visit(id);
    },
    generateBundle(_options, bundle) {
      const chunks = new Map<string, { imports: string[]; facade: string | null }>();
      for (const file of Object.values(bundle)) {
        if (file.type === "chunk") chunks.set(file.fileName, { imports: file.imports, facade: file.facadeModuleId });
      }
      // What the shell's entry loads anyway (index.html preloads it).
      const shell = new Set<string>();
      const closure = (name: string, into: Set<string>, skip: Set<string>) => {
        if (into.has(name) || skip.has(name) || !chunks.has(name)) return;
        into.add(name);
        for (const next of chunks.get(name)!.imports) closure(next, into, skip);
      };
      for (const file of Object.values(bundle)) if (file.type === "chunk" && file.isEntry) closure(file.fileName, shell, new Set());
      const map: Record<string, string[]> = {};
      for (const id of this.getModuleIds()) {
        const folder = /\/plugins\/([^/]+)\/web\/index\.tsx?$/.exec(id);
        if (!folder) continue;
        // The index module's import() of its component: the dashboard's chunk is the one it is the facade of.
        for (const target of this.getModuleInfo(id)?.dynamicallyImportedIds ?? []) {
          const chunk = [...chunks].find(([, c]) => c.facade === target);
          if (!chunk) continue;
          const files = new Set<string>();
          closure(chunk[0], files, shell);
          map[folder[1]!] = [...files];
        }
      }
      const boot = readFileSync(here("./web/public/boot.js"), "utf8");
      if (!boot.includes(CHUNKS_PLACEHOLDER)) this.error(`web/public/boot.js lacks ${CHUNKS_PLACEHOLDER}`);
      const source = boot.replace(CHUNKS_PLACEHOLDER, JSON.stringify(map));
      this.emitFile({ type: "asset", fileName: "boot.js", source });
    },
  };
}

export default defineConfig({
  root: here("./web"),
  // Relative asset URLs: the UI also works when a proxy serves it under a prefix (/proxy/6006/).
  base: "./",
  plugins: [preact(), dashboardChunks()],
  resolve: {
    alias: {
      "@app": here("./web/src/app"),
      "@charts": here("./web/src/charts"),
      "@api": here("./web/src/api"),
      "@media": here("./web/src/media"),
      "@web": here("./web/src"),
    },
  },
  build: {
    outDir: here("./src/ridgeline/_static"),
    emptyOutDir: true,
    target: "es2022",
    // The shell is one chunk; each dashboard's component another (with chunks for the code dashboards share).
    chunkSizeWarningLimit: 1024,
    // One stylesheet, as before dashboards became chunks: the plugins' CSS is imported by their index modules
    // (in the shell's chunk), and what the components import (cards, settings bar, uPlot) is used across
    // dashboards; one file keeps the cascade's order and draws no dashboard unstyled while its CSS loads.
    cssCodeSplit: false,
    rolldownOptions: {
      output: { codeSplitting: { groups: [{ name: "dashboards-lib", test: sharedByDashboards, includeDependenciesRecursively: false }] } },
    },
  },
  server: {
    host: "127.0.0.1",
    fs: { allow: [here(".")] },
    proxy: { "/api": { target: "http://127.0.0.1:6006", changeOrigin: true } },
  },
  test: {
    root: here("."),
    include: ["web/src/**/*.test.{ts,tsx}", "src/ridgeline/plugins/*/web/**/*.test.{ts,tsx}"],
    environment: "node",
  },
});
