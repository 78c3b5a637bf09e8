/**
 * The profiled steps on every scalar card (the Time Series page's and the Scalars dashboard's): for each run of
 * the card that has profiler traces (/api/runs lists them under the kind "profile"), a mark on the x axis at each
 * training step its traces cover (GET /api/profile/steps: the N of each ProfilerStep#N span), as tall as the step
 * was slow next to the run's slowest profiled step; hovering one gives each trace's step time beside the curve's
 * value, and the card's header the run's mean step time. ./index.tsx registers {@link useProfileCardOverlay}
 * with the shell's card overlays (@charts/overlays). Marks need the step x axis; steps are asked for once a card is
 * seen, once per run and reload.
 */
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type uPlot from "uplot";
import { getJson } from "@api/client";
import type { CardOverlay, OverlayContext } from "@charts/overlays";
import { withAlpha } from "@charts/plot";
import { formatStep } from "@charts/format";
import { type StepsAnswer, us } from "./api";

/** One profiled step of one run: its step time in each of the run's traces (µs, by worker). */
export interface ProfiledStep {
  step: number;
  times: { worker: string; time: number }[];
}

export interface ProfiledRun {
  run: string;
  colour: string;
  steps: ProfiledStep[];
  /** The slowest step's time (the marks' scale). */
  slowest: number;
  mean: number;
}

const asked = new Map<string, Promise<ProfiledStep[]>>();

/** The run's profiled steps, asked once per run and reload (tick); a failed answer counts as none. */
function profiledSteps(run: string, tick: number): Promise<ProfiledStep[]> {
  const key = `${run}\u0000${tick}`;
  let found = asked.get(key);
  if (!found) {
    found = getJson<StepsAnswer>("/api/profile/steps", { run }).then(byStep, () => []);
    asked.set(key, found);
  }
  return found;
}

/** The route's rows (one per step and trace) grouped by step. */
export function byStep(answer: StepsAnswer): ProfiledStep[] {
  const steps = new Map<number, ProfiledStep>();
  for (const row of answer.steps) {
    let entry = steps.get(row.step);
    if (!entry) steps.set(row.step, (entry = { step: row.step, times: [] }));
    entry.times.push({ worker: row.worker, time: row.time });
  }
  return [...steps.values()].sort((a, b) => a.step - b.step);
}

function longest(step: ProfiledStep): number {
  return Math.max(...step.times.map((t) => t.time));
}

export function useProfileCardOverlay(c: OverlayContext): CardOverlay {
  const traced = useMemo(() => {
    const drawn = new Set(c.keys.map((k) => k.run));
    return c.runs.filter((r) => drawn.has(r.run) && (r.tags.profile ?? []).length > 0);
  }, [c.runs, c.keys]);
  const stepAxis = c.settings.xAxis === "step";
  const want = c.seen && stepAxis && traced.length > 0;
  const runsKey = traced.map((r) => `${r.run}\u0001${r.colour}`).join("\u0000");
  const [profiled, setProfiled] = useState<ProfiledRun[]>([]);
  useEffect(() => {
    if (!want) {
      setProfiled([]);
      return;
    }
    let live = true;
    Promise.all(traced.map((r) => profiledSteps(r.run, c.tick))).then((answers) => {
      if (!live) return;
      setProfiled(
        traced.flatMap((r, i) => {
          const steps = answers[i];
          if (!steps.length) return [];
          const times = steps.map(longest);
          const mean = times.reduce((a, b) => a + b, 0) / times.length;
          return [{ run: r.run, colour: r.colour, steps, slowest: Math.max(...times), mean }];
        }),
      );
    });
    return () => {
      live = false;
    };
  }, [want, runsKey, c.tick]);
  const ref = useRef<ProfiledRun[]>(profiled);
  ref.current = profiled;
  const marked = [...new Set(profiled.flatMap((p) => p.steps.map((s) => s.step)))].sort((a, b) => a - b);
  return {
    version: `profile:${profiled.map((p) => `${p.run}:${p.steps.length}`).join(",")}`,
    yExtra: () => [],
    drawBack: () => undefined,
    drawFront: (u) => drawMarks(u, ref.current),
    notes: (u, _x, left) => notes(u, ref.current, left),
    view: () => null,
    legend: profiled.length > 0 && <ProfileLegend profiled={profiled} />,
    attributes: { "data-profiled-steps": marked.join(",") },
  };
}

const MARK_HALF_WIDTH = 4;
const MARK_MIN = 6;
const MARK_MAX = 18;

/** A mark's height (css px): the step's time next to the run's slowest profiled step. */
function markHeight(step: ProfiledStep, run: ProfiledRun): number {
  return MARK_MIN + (MARK_MAX - MARK_MIN) * (run.slowest > 0 ? longest(step) / run.slowest : 1);
}

/** Upward bars standing on the x axis, in the run's colour, at each profiled step inside the view. */
function drawMarks(u: uPlot, profiled: ProfiledRun[]): void {
  if (!profiled.length) return;
  const { left, top, width, height } = u.bbox;
  const dpr = devicePixelRatio || 1;
  const ctx = u.ctx;
  const bottom = top + height;
  ctx.save();
  ctx.beginPath();
  ctx.rect(left, top, width, height);
  ctx.clip();
  for (const run of profiled) {
    for (const step of run.steps) {
      const x = u.valToPos(step.step, "x", true);
      if (!(x >= left && x <= left + width)) continue;
      const h = markHeight(step, run) * dpr;
      const w = MARK_HALF_WIDTH * dpr;
      ctx.fillStyle = withAlpha(run.colour, 0.35);
      ctx.strokeStyle = run.colour;
      ctx.lineWidth = 1.5 * dpr;
      ctx.beginPath();
      ctx.rect(x - w, bottom - h, 2 * w, h);
      ctx.fill();
      ctx.stroke();
    }
  }
  ctx.restore();
}

/** Tooltip lines for the profiled steps within 6 px of the cursor: the step time in each trace of the run. */
function notes(u: uPlot, profiled: ProfiledRun[], left: number): string[] {
  const out: string[] = [];
  for (const run of profiled) {
    for (const step of run.steps) {
      if (Math.abs(u.valToPos(step.step, "x") - left) > 6) continue;
      const times = step.times.map((t) => (step.times.length > 1 ? `${us(t.time)} (${t.worker})` : us(t.time))).join(", ");
      out.push(`Profiled step ${formatStep(step.step)}: ${times}${profiled.length > 1 ? ` · ${run.run}` : ""}`);
    }
  }
  return out;
}

function ProfileLegend({ profiled }: { profiled: ProfiledRun[] }) {
  const lines = profiled.map((p) => `${p.run}: steps ${p.steps.map((s) => formatStep(s.step)).join(", ")}, ${us(p.mean)} a step`);
  const only = profiled.length === 1 ? profiled[0] : null;
  return (
    <span
      class="rl-badge pf-profiled"
      data-testid="profiled-steps"
      title={`Profiled steps (the marks on the x axis; taller: slower), from the run's profiler traces:\n${lines.join("\n")}`}
    >
      {only ? `profiled ×${only.steps.length} · ${us(only.mean)}/step` : `profiled: ${profiled.length} runs`}
    </span>
  );
}
