/**
 * The web UI build: the shell in web/ and the dashboards in src/ridgeline/plugins/<name>/web/, bundled into
 * src/ridgeline/_static/ (git-ignored, shipped in the wheel, served by the Python server). `npm run dev` serves
 * the same UI with hot reload and proxies /api to a running `ridgeline serve` on 127.0.0.1:6006.
 */
import { fileURLToPath } from "node:url";
import preact from "@preact/preset-vite";
import { defineConfig } from "vitest/config";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  root: here("./web"),
  // Relative asset URLs: the UI also works when a proxy serves it under a prefix (/proxy/6006/).
  base: "./",
  plugins: [preact()],
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
    // uPlot and Preact are small; one chunk per entry keeps the served files few and cacheable.
    chunkSizeWarningLimit: 1024,
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
