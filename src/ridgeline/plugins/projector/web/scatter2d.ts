/**
 * The 2D scatter: regl-scatterplot (WebGL), which draws millions of points, pans and zooms (drag, wheel), selects
 * with a click or a lasso (shift-drag, or the lasso button), animates between two sets of positions, and fades
 * with density. Colours come in as a palette and a per-point index (its categorical `valueA` channel).
 */
import createScatterplot from "regl-scatterplot";
import { visibleIndices, type Scatter, type ScatterEvents, type ScatterPoints } from "./scatter";

type Plot = ReturnType<typeof createScatterplot>;

export function createScatter2D(container: HTMLElement, events: ScatterEvents): Scatter {
  const canvas = document.createElement("canvas");
  canvas.className = "rl-proj-canvas";
  canvas.dataset.testid = "projector-canvas";
  container.appendChild(canvas);
  const { width, height } = container.getBoundingClientRect();
  let frames = 0;
  const plot: Plot = createScatterplot({
    canvas,
    width: Math.max(1, Math.floor(width)),
    height: Math.max(1, Math.floor(height)),
    pointSize: 4,
    opacity: 0.8,
    opacityInactiveScale: 0.25,
    pointColorActive: "#ff3d00",
    pointColorHover: "#000000",
    pointSizeSelected: 3,
    lassoColor: [0.1, 0.33, 0.94, 1],
    deselectOnDblClick: false,
    colorBy: "valueA",
  });
  let drawn: ScatterPoints | null = null;
  let shown: number[] | null = null;
  let mouse = { x: 0, y: 0 };
  let hovered: number | null = null;

  canvas.addEventListener("mousemove", (e) => {
    mouse = { x: e.clientX, y: e.clientY };
    if (hovered !== null) events.hover(hovered, mouse.x, mouse.y);
  });
  canvas.addEventListener("mouseleave", () => {
    hovered = null;
    events.hover(null, 0, 0);
  });
  plot.subscribe("pointOver", (index: number) => {
    hovered = index;
    events.hover(index, mouse.x, mouse.y);
  });
  plot.subscribe("pointOut", () => {
    hovered = null;
    events.hover(null, 0, 0);
  });
  let lassoing = false;
  plot.subscribe("lassoStart", () => void (lassoing = true));
  plot.subscribe("select", ({ points }: { points: number[] }) => {
    if (lassoing) {
      lassoing = false;
      events.lasso(points);
    } else events.click(points.length ? points[0]! : null);
  });
  plot.subscribe("deselect", () => events.click(null));
  plot.subscribe("view", () => events.view());
  plot.subscribe("draw", () => void frames++);

  const applyFilter = async () => {
    if (!drawn) return;
    const all = visibleIndices(drawn.visible);
    const wanted = shown ?? all;
    if (wanted.length === drawn.x.length) await plot.unfilter({ preventEvent: true });
    else await plot.filter(wanted, { preventEvent: true });
  };

  return {
    dims: 2,
    async draw(points, colours, transition) {
      const first = drawn === null || drawn.x.length !== points.x.length;
      await plot.set({ pointColor: colours.palette });
      await plot.draw(
        { x: points.x, y: points.y, valueA: colours.index },
        {
          transition: transition && !first,
          transitionDuration: 700,
          preventFilterReset: true,
          zDataType: "categorical",
        },
      );
      drawn = points;
      if (shown) shown = shown.filter((i) => points.visible[i]);
      await applyFilter();
    },
    recolour(colours) {
      if (!drawn) return;
      void plot.set({ pointColor: colours.palette }).then(() =>
        plot.draw({ x: drawn!.x, y: drawn!.y, valueA: colours.index }, { preventFilterReset: true, zDataType: "categorical" }),
      );
    },
    select(indices) {
      // Our own selection (neighbours, search matches): no event, which would read as the user's click.
      if (indices.length) plot.select(indices, { preventEvent: true });
      else plot.deselect({ preventEvent: true });
    },
    show(indices) {
      shown = indices ? Array.from(indices) : null;
      void applyFilter();
    },
    style(size, opacity) {
      void plot.set({ pointSize: size, opacity: Math.max(0.01, Math.min(1, opacity)) });
    },
    setBackground(colour) {
      void plot.set({ backgroundColor: colour, pointColorHover: colour === "#ffffff" ? "#000000" : "#ffffff" });
    },
    screenPosition(index) {
      const found = plot.getScreenPosition(index);
      if (!found) return null;
      const [x, y] = found;
      const w = canvas.clientWidth;
      const h = canvas.clientHeight;
      return x >= 0 && y >= 0 && x <= w && y <= h ? [x, y] : null;
    },
    camera() {
      return Array.from(plot.get("cameraView") as Float32Array);
    },
    setCamera(camera) {
      if (camera.length === 16) void plot.set({ cameraView: Float32Array.from(camera) });
    },
    reset() {
      void plot.reset();
    },
    frames: () => frames,
    setLasso(on) {
      void plot.set({ mouseMode: on ? "lasso" : "panZoom" });
    },
    resize() {
      const box = container.getBoundingClientRect();
      void plot.set({ width: Math.max(1, Math.floor(box.width)), height: Math.max(1, Math.floor(box.height)) });
    },
    destroy() {
      plot.destroy();
      canvas.remove();
    },
  };
}
