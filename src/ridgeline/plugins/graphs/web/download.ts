/**
 * The graph as a file: an SVG document of the whole laid-out graph (not just what the view shows), with the page's
 * styles written into each element so it looks the same opened anywhere, and a PNG drawn from it at twice the
 * size (bounded so that the canvas stays within what browsers draw).
 */
import type { Layout } from "./layout";

const MARGIN = 16;
/** Computed styles copied onto each element of the file (the page's stylesheet does not travel with it). */
const STYLES = [
  "fill",
  "fill-opacity",
  "stroke",
  "stroke-width",
  "stroke-dasharray",
  "stroke-opacity",
  "stroke-linejoin",
  "opacity",
  "paint-order",
  "font-family",
  "font-size",
  "font-weight",
  "font-style",
  "display",
  "visibility",
] as const;
/** The most pixels a PNG gets (Chrome refuses canvases past about 268M) and the longest side. */
const MAX_PIXELS = 64_000_000;
const MAX_SIDE = 16_384;

/** The first non-transparent background at or above `element` (the card the graph is drawn on). */
function backgroundOf(element: Element): string {
  for (let e: Element | null = element; e; e = e.parentElement) {
    const colour = getComputedStyle(e).backgroundColor;
    if (colour && colour !== "transparent" && !/rgba\(.*,\s*0\)$/.test(colour)) return colour;
  }
  return "#ffffff";
}

/** The size of the file's drawing: the layout and a margin around it. */
export function fileSize(layout: Layout): { width: number; height: number } {
  return { width: Math.ceil(layout.width + 2 * MARGIN), height: Math.ceil(layout.height + 2 * MARGIN) };
}

/** `svg` (the graph view) as a standalone SVG document of the whole `layout`. */
export function graphSvg(svg: SVGSVGElement, layout: Layout): string {
  const { width, height } = fileSize(layout);
  const copy = svg.cloneNode(true) as SVGSVGElement;
  const from = [svg, ...svg.querySelectorAll("*")];
  const to = [copy, ...copy.querySelectorAll("*")];
  from.forEach((element, i) => {
    const target = to[i] as SVGElement;
    const style = getComputedStyle(element);
    target.setAttribute("style", STYLES.map((name) => `${name}:${style.getPropertyValue(name)}`).join(";"));
    for (const attribute of ["class", "tabindex", "role", "data-testid"]) target.removeAttribute(attribute);
  });
  copy.setAttribute("xmlns", "http://www.w3.org/2000/svg");
  copy.setAttribute("width", String(width));
  copy.setAttribute("height", String(height));
  copy.setAttribute("viewBox", `0 0 ${width} ${height}`);
  copy.setAttribute("style", `font-family:${getComputedStyle(svg).fontFamily}`);
  // The whole graph at its own size, whatever the view's pan and zoom.
  copy.querySelector(":scope > g")?.setAttribute("transform", `translate(${MARGIN},${MARGIN})`);
  const background = document.createElementNS("http://www.w3.org/2000/svg", "rect");
  background.setAttribute("width", "100%");
  background.setAttribute("height", "100%");
  background.setAttribute("fill", backgroundOf(svg));
  copy.insertBefore(background, copy.firstChild);
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(copy)}`;
}

/** The SVG document drawn into a PNG, twice its size where that fits the bounds. */
export async function graphPng(svgText: string, layout: Layout): Promise<Blob> {
  const { width, height } = fileSize(layout);
  const scale = Math.min(2, Math.sqrt(MAX_PIXELS / (width * height)), MAX_SIDE / width, MAX_SIDE / height);
  const url = URL.createObjectURL(new Blob([svgText], { type: "image/svg+xml" }));
  try {
    const image = new Image();
    image.src = url;
    await image.decode();
    const canvas = document.createElement("canvas");
    canvas.width = Math.max(1, Math.floor(width * scale));
    canvas.height = Math.max(1, Math.floor(height * scale));
    const context = canvas.getContext("2d");
    if (!context) throw new Error("this browser cannot draw a PNG");
    context.drawImage(image, 0, 0, canvas.width, canvas.height);
    return await new Promise<Blob>((resolve, reject) =>
      canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error("the PNG could not be made"))), "image/png"),
    );
  } finally {
    URL.revokeObjectURL(url);
  }
}

/** Offers `blob` as a download named `name`. */
export function save(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has its own copy once it starts; the URL is not needed after this task.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** A file name from a run and tag: letters, digits, dots, dashes and underscores. */
export function fileName(run: string, tag: string, ext: "svg" | "png"): string {
  const base = tag && tag !== "__graph__" ? `${run}_${tag}` : run;
  return `graph_${base.replace(/[^\w.-]+/g, "_").replace(/^_+|_+$/g, "") || "graph"}.${ext}`;
}
