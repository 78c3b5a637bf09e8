/**
 * What the projector asks of a WebGL scatter plot, in 2D (regl-scatterplot: ./scatter2d) or 3D (three.js:
 * ./scatter3d). Both draw every point they are given (no sampling: `show` hides points only when the user asked
 * for a sample), animate from the previous positions when asked, and report hovers, clicks and selections by
 * point index. They are loaded on demand (dynamic import), so the rest of the UI does not carry them.
 */
export interface ScatterPoints {
  /** Scaled into [-1, 1] (./model scaleCoordinates). */
  x: Float32Array;
  y: Float32Array;
  z: Float32Array;
  /** 0 for a point that cannot be drawn (NaN/Inf vectors): never shown. */
  visible: Uint8Array;
}

export interface ScatterColours {
  palette: string[];
  /** Per point, its colour's index in `palette`. */
  index: Uint16Array;
}

export interface ScatterEvents {
  /** The point under the mouse (null when none), with the mouse's position in the page. */
  hover(index: number | null, clientX: number, clientY: number): void;
  /** A click on a point, or on the background (null). */
  click(index: number | null): void;
  /** A lasso selection (2D). */
  lasso(indices: number[]): void;
  /** The camera moved (pan, zoom, orbit). */
  view(): void;
}

export interface Scatter {
  readonly dims: 2 | 3;
  draw(points: ScatterPoints, colours: ScatterColours, transition: boolean): Promise<void>;
  recolour(colours: ScatterColours): void;
  /** Highlight these points (the others fade). */
  select(indices: number[]): void;
  /** Draw only these points (a sample the user asked for), or every visible point (null). */
  show(indices: Uint32Array | null): void;
  style(size: number, opacity: number): void;
  setBackground(colour: string): void;
  /** Where a point is on the canvas (CSS px from its top-left corner), or null when not in view. */
  screenPosition(index: number): [number, number] | null;
  camera(): number[];
  setCamera(camera: number[]): void;
  reset(): void;
  /** Frames drawn so far (the benchmark's frame counter). */
  frames(): number;
  setLasso(on: boolean): void;
  resize(): void;
  destroy(): void;
}

export type ScatterFactory = (container: HTMLElement, events: ScatterEvents) => Scatter;

/** Every visible point's index (what "show all" draws). */
export function visibleIndices(visible: Uint8Array): number[] {
  const out: number[] = [];
  for (let i = 0; i < visible.length; i++) if (visible[i]) out.push(i);
  return out;
}
