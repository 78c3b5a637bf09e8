/**
 * The PNG and SVG download buttons of a chart card (scalars, time series, custom scalars, distributed, PR curves): the chart
 * as drawn, under its title and legend (./picture).
 */
import type { RefObject } from "preact";
import { downloadBlob, downloadText, safeFileName } from "./export";
import { chartPng, chartSvg, type Pictured } from "./picture";

export interface ChartPictureButtonsProps {
  /** The card's plot (null while nothing is drawn: the buttons are disabled). */
  plot: RefObject<Pictured | null>;
  /** The card's title, written above the chart and in the buttons' labels. */
  title: string;
  /** The file name without extension (default: the title made safe). */
  name?: string;
  drawn: boolean;
}

export function ChartPictureButtons({ plot, title, name, drawn }: ChartPictureButtonsProps) {
  const file = name ?? safeFileName(title);
  const png = async () => {
    const p = plot.current;
    if (p) downloadBlob(await chartPng(p, title), `${file}.png`);
  };
  const svg = () => {
    const p = plot.current;
    if (p) downloadText(chartSvg(p, title), `${file}.svg`, "image/svg+xml");
  };
  return (
    <>
      <button type="button" class="rl-icon" aria-label={`Download ${title} as PNG`} title="Download the chart as PNG" disabled={!drawn} onClick={() => void png()}>
        PNG
      </button>
      <button type="button" class="rl-icon" aria-label={`Download ${title} as SVG`} title="Download the chart as SVG (vector)" disabled={!drawn} onClick={svg}>
        SVG
      </button>
    </>
  );
}
