/**
 * The settings of the line charts (the scalars, custom scalars and time series dashboards read the same ones),
 * each kept in the URL (and localStorage) under an "s." key so a link reproduces the view: s.smooth, s.smoother, s.y, s.ymin, s.ymax, s.x, s.xtag, s.xlog, s.outliers, s.tipsort,
 * s.groupby, s.group, s.band, s.pinned, s.collapsed, s.combine, s.phases, s.forecast (the insights overlays).
 */
import { useMemo } from "preact/hooks";
import { useUrlState } from "@app/state";
import type { Smoother } from "@charts/smoothing";
import type { TooltipSort } from "@charts/tooltip";
import type { GroupBy } from "@charts/groups";
import type { XAxis } from "./model";

export interface Settings {
  smoothing: number;
  smoother: Smoother;
  yScale: "linear" | "log";
  yMin: string;
  yMax: string;
  xAxis: XAxis;
  xTag: string;
  xLog: boolean;
  outliers: boolean;
  tooltipSort: TooltipSort;
  groupBy: GroupBy;
  group: string;
  groupBand: "std" | "minmax";
  /** Colour the loss curve's training phases behind it (insights: /api/phases). */
  phases: boolean;
  /** Draw the forecast dashed with its uncertainty band (insights: /api/forecast). */
  forecast: boolean;
}

export interface SettingsApi {
  settings: Settings;
  set: <K extends keyof Settings>(key: K, value: Settings[K]) => void;
  pinned: string[];
  setPinned: (v: string[]) => void;
  collapsed: string[];
  setCollapsed: (v: string[]) => void;
  combine: string[];
  setCombine: (v: string[]) => void;
}

export function useSettings(): SettingsApi {
  const [smoothing, setSmoothing] = useUrlState("s.smooth", 0.6);
  const [smoother, setSmoother] = useUrlState<string>("s.smoother", "ema");
  const [yScale, setYScale] = useUrlState<string>("s.y", "linear");
  const [yMin, setYMin] = useUrlState("s.ymin", "");
  const [yMax, setYMax] = useUrlState("s.ymax", "");
  const [xAxis, setXAxis] = useUrlState<string>("s.x", "step");
  const [xTag, setXTag] = useUrlState("s.xtag", "");
  const [xLog, setXLog] = useUrlState("s.xlog", false);
  const [outliers, setOutliers] = useUrlState("s.outliers", true);
  const [tooltipSort, setTooltipSort] = useUrlState<string>("s.tipsort", "nearest");
  const [groupBy, setGroupBy] = useUrlState<string>("s.groupby", "none");
  const [group, setGroup] = useUrlState("s.group", "");
  const [groupBand, setGroupBand] = useUrlState<string>("s.band", "std");
  const [phases, setPhases] = useUrlState("s.phases", false);
  const [forecast, setForecast] = useUrlState("s.forecast", false);
  const [pinned, setPinned] = useUrlState<string[]>("s.pinned", []);
  // The system metrics (sys/..., SummaryWriter(system_metrics=True)) start collapsed: context, not the curves.
  const [collapsed, setCollapsed] = useUrlState<string[]>("s.collapsed", ["sys"]);
  const [combine, setCombine] = useUrlState<string[]>("s.combine", []);
  const settings = useMemo<Settings>(
    () => ({
      smoothing: Math.max(0, Math.min(0.999, Number(smoothing) || 0)),
      smoother: (["ema", "time-ema", "gaussian"].includes(smoother) ? smoother : "ema") as Smoother,
      yScale: yScale === "log" ? "log" : "linear",
      yMin,
      yMax,
      xAxis: (["step", "relative", "wall", "tag"].includes(xAxis) ? xAxis : "step") as XAxis,
      xTag,
      xLog,
      outliers,
      tooltipSort: (["nearest", "value-desc", "value-asc", "name"].includes(tooltipSort) ? tooltipSort : "nearest") as TooltipSort,
      groupBy: (["none", "regex", "hparam"].includes(groupBy) ? groupBy : "none") as GroupBy,
      group,
      groupBand: groupBand === "minmax" ? "minmax" : "std",
      phases,
      forecast,
    }),
    [smoothing, smoother, yScale, yMin, yMax, xAxis, xTag, xLog, outliers, tooltipSort, groupBy, group, groupBand, phases, forecast],
  );
  const setters: { [K in keyof Settings]: (v: never) => void } = {
    smoothing: setSmoothing,
    smoother: setSmoother,
    yScale: setYScale,
    yMin: setYMin,
    yMax: setYMax,
    xAxis: setXAxis,
    xTag: setXTag,
    xLog: setXLog,
    outliers: setOutliers,
    tooltipSort: setTooltipSort,
    groupBy: setGroupBy,
    group: setGroup,
    groupBand: setGroupBand,
    phases: setPhases,
    forecast: setForecast,
  };
  return {
    settings,
    set: (key, value) => (setters[key] as (v: unknown) => void)(value),
    pinned: Array.isArray(pinned) ? pinned : [],
    setPinned,
    collapsed: Array.isArray(collapsed) ? collapsed : [],
    setCollapsed,
    combine: Array.isArray(combine) ? combine : [],
    setCombine,
  };
}

/** The y range the user fixed (Y min / Y max): null for a bound left empty or not a number (auto). */
export function yFixed(settings: Pick<Settings, "yMin" | "yMax">): { min: number | null; max: number | null } {
  return { min: parseBound(settings.yMin), max: parseBound(settings.yMax) };
}

function parseBound(s: string): number | null {
  if (s.trim() === "") return null;
  const n = Number(s);
  return Number.isFinite(n) ? n : null;
}
