/** The shapes the profile routes answer (docs/profile.md; the routes declare no response model). */
import type { Answer } from "@api/types";

export interface TraceEntry { name: string; worker: string; bytes: number }
export type RunsAnswer = Answer<"/api/profile/runs", { runs: { run: string; traces: TraceEntry[] }[] }>;
export interface Step { step: number; start: number; duration: number; [category: string]: number }
export type OverviewAnswer = Answer<"/api/profile/overview", {
  device: boolean; rank: number | null; categories: string[]; steps: Step[]; step_time_mean: number | null;
  shares: Record<string, number>; gpu_utilisation: number | null; sm_efficiency: number | null;
  achieved_occupancy: number | null; recommendation: string | null; notes: string[]; events: number;
}>;
export interface OperatorRow { name: string; input_shapes: string | null; calls: number; self_cpu: number; total_cpu: number; self_device: number; total_device: number }
export type OperatorsAnswer = Answer<"/api/profile/operators", { operators: OperatorRow[] }>;
export type StacksAnswer = Answer<"/api/profile/stacks", { stacks: { calls: number; frames: string[] }[] }>;
export interface KernelRow { name: string; calls: number; total: number; mean: number; min: number; max: number; tensor_cores: boolean; grid: string; block: string; registers: number | null; shared_memory: number | null; blocks_per_sm: number | null; warps_per_sm: number | null; occupancy: number | null }
export type KernelsAnswer = Answer<"/api/profile/kernels", { kernels: KernelRow[] }>;
export interface MemoryCurve { device: string; ts: number[]; allocated: (number | null)[]; reserved: (number | null)[]; peak: { ts: number; allocated: number } }
export type MemoryAnswer = Answer<"/api/profile/memory", { devices: MemoryCurve[] }>;
export interface Lane { lane: number; label: string; device: boolean; depth: number }
export interface Row { lane: number; depth: number; ids: number[]; ts: number[]; dur: number[]; name: number[]; blocks: [number, number, number][] }
export type TimelineAnswer = Answer<"/api/profile/timeline", { extent: [number, number]; lanes: Lane[]; start: number; end: number; rows: Row[]; names: Record<string, string> }>;
export type EventAnswer = Answer<"/api/profile/event", { id: number; name: string; cat: string; ts: number; dur: number; lane: string; args: Record<string, unknown> }>;
export interface RankRow { rank: number; trace: string; device: boolean; steps: number; step_time_mean: number | null; breakdown: Record<string, number>; overlap: number | null; idle: Record<string, number> | null }
export type StepsAnswer = Answer<"/api/profile/steps", { run: string; steps: { step: number; time: number; trace: string; worker: string }[]; problems: { trace: string; error: string }[] }>;
export type RanksAnswer = Answer<"/api/profile/ranks", { categories: string[]; ranks: RankRow[]; late_collectives: { step: number; straggler: number; delay: Record<string, number> }[] }>;

/** Microseconds, readable. */
export function us(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "–";
  if (Math.abs(value) >= 1e6) return `${(value / 1e6).toFixed(2)} s`;
  if (Math.abs(value) >= 1e3) return `${(value / 1e3).toFixed(2)} ms`;
  return `${value.toFixed(1)} µs`;
}

export const percent = (value: number | null | undefined): string =>
  value === null || value === undefined ? "–" : `${(value * 100).toFixed(1)}%`;

export const CATEGORY_COLOURS: Record<string, string> = {
  communication: "#d9534f", kernel: "#2e7d32", memcpy: "#f0ad4e", memset: "#c9a227",
  dataloader: "#8e44ad", cpu: "#1f77b4", idle: "#b0b0b0",
};
