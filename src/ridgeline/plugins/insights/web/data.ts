/**
 * The insights' data in the page: one stream of alerts shared by the alerts panel and every scalar card
 * (polled with the server's cursor, so each poll carries only what is new), desktop notifications of new
 * alerts, and cached requests for phases, forecasts and the diagnosis.
 */
import { useEffect, useState } from "preact/hooks";
import { getJson } from "@api/client";
import type { Answer, PluginsResponse, QueryOf, RouteOf } from "@api/types";
import { formatNumber } from "@charts/format";
import {
  mergeAlerts,
  notificationText,
  type Alert,
  type AlertsResponse,
  type Checked,
  type Finding,
  type Forecast,
  type Segment,
} from "./model";

const NOTIFY_KEY = "ridgeline.i.notify";
/** While notifications are on, the stream also polls on its own (any dashboard may be open). */
const BACKGROUND_POLL_MS = 10_000;

type Listener = () => void;

/** The page's alerts: everything the server reported since the page opened, in arrival order. */
class AlertStream {
  alerts: Alert[] = [];
  /** Per "run\0tag": that series' alerts (for the chart markers). */
  bySeries = new Map<string, Alert[]>();
  loaded = false;
  error: string | null = null;
  version = 0;
  private cursor: number | null = null;
  private inflight: Promise<void> | null = null;
  private lastTick = -1;
  private listeners = new Set<Listener>();
  private timer: ReturnType<typeof setInterval> | null = null;

  subscribe(l: Listener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  /** Polls once per shell tick (the first caller of a tick polls; the others share it). */
  request(tick: number): void {
    if (tick === this.lastTick) return;
    this.lastTick = tick;
    void this.poll();
  }

  poll(): Promise<void> {
    if (this.inflight) return this.inflight;
    const params = this.cursor == null ? {} : { since: this.cursor };
    this.inflight = insightsServed()
      .then((served) => {
        if (!served) throw new Error("this server does not serve insights (no insights plugin)");
        return getJson<AlertsResponse>("/api/alerts", params);
      })
      .then(
        (r) => {
          const first = !this.loaded;
          const { alerts, added } = mergeAlerts(this.alerts, r.alerts ?? []);
          this.cursor = typeof r.cursor === "number" ? r.cursor : this.cursor;
          this.loaded = true;
          this.error = null;
          if (added.length || first) {
            this.alerts = alerts;
            this.bySeries = new Map();
            for (const a of alerts) {
              const k = `${a.run}\u0000${a.tag}`;
              const list = this.bySeries.get(k);
              if (list) list.push(a);
              else this.bySeries.set(k, [a]);
            }
            this.version++;
            if (!first && added.length) notify(added);
            this.emit();
          }
        },
        (err: unknown) => {
          const message = err instanceof Error ? err.message : String(err);
          if (message !== this.error || !this.loaded) {
            this.error = message;
            this.loaded = true;
            this.version++;
            this.emit();
          }
        },
      )
      .finally(() => {
        this.inflight = null;
      });
    return this.inflight;
  }

  /** Polls every BACKGROUND_POLL_MS while notifications are on. */
  background(on: boolean): void {
    if (on && !this.timer) this.timer = setInterval(() => void this.poll(), BACKGROUND_POLL_MS);
    if (!on && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  private emit(): void {
    for (const l of this.listeners) l();
  }
}

export const alertStream = new AlertStream();

let served: Promise<boolean> | null = null;

/**
 * Whether the server has the insights plugin (GET /api/plugins, asked once): scalar cards ask for alerts on
 * every tick, and a server without the routes must not answer each of them with a 404.
 */
export function insightsServed(): Promise<boolean> {
  return (served ??= getJson<PluginsResponse>("/api/plugins").then(
    (r) => r.plugins.includes("insights"),
    () => {
      served = null; // unreachable: ask again next time
      return false;
    },
  ));
}

/** The alert stream, polled on every tick; re-renders when alerts arrive. */
export function useAlerts(tick: number, enabled = true): AlertStream {
  const [, setVersion] = useState(alertStream.version);
  useEffect(() => alertStream.subscribe(() => setVersion(alertStream.version)), []);
  useEffect(() => {
    if (enabled) alertStream.request(tick);
  }, [tick, enabled]);
  return alertStream;
}

// --- desktop notifications ------------------------------------------------------------------------------------

export function notificationsSupported(): boolean {
  return typeof window !== "undefined" && "Notification" in window;
}

/** On when the user turned it on (kept in localStorage) and the browser granted the permission. */
export function notificationsOn(): boolean {
  try {
    return notificationsSupported() && Notification.permission === "granted" && localStorage.getItem(NOTIFY_KEY) === "1";
  } catch {
    return false;
  }
}

/**
 * Turns notifications on or off from a click (the only place the permission is asked: browsers ignore or
 * penalise a request without a user gesture). Resolves to whether they are on now.
 */
export async function setNotifications(on: boolean): Promise<boolean> {
  if (!notificationsSupported()) return false;
  if (on && Notification.permission !== "granted") {
    const answer = await Notification.requestPermission();
    if (answer !== "granted") on = false;
  }
  try {
    if (on) localStorage.setItem(NOTIFY_KEY, "1");
    else localStorage.removeItem(NOTIFY_KEY);
  } catch {
    // Storage forbidden: on for this page only.
  }
  alertStream.background(on);
  return on;
}

function notify(added: Alert[]): void {
  if (!notificationsOn()) return;
  const { title, body } = notificationText(added, (x) => formatNumber(x));
  try {
    new Notification(title, { body, tag: "ridgeline-alerts" });
  } catch {
    // Some browsers only allow notifications from a service worker: nothing to do then.
  }
}

if (typeof window !== "undefined") alertStream.background(notificationsOn());

// --- phases, forecasts, diagnosis ---------------------------------------------------------------------------------

/** Answers per URL and tick (a new tick may bring new points, so the answer is asked again then). */
const answers = new Map<string, { tick: number; promise: Promise<unknown> }>();

function cached<T>(path: RouteOf<T>, params: QueryOf<T>, tick: number): Promise<T> {
  const key = `${path}?${new URLSearchParams(params as Record<string, string>).toString()}`;
  const hit = answers.get(key);
  if (hit && hit.tick === tick) return hit.promise as Promise<T>;
  const promise = getJson<T>(path, params);
  // A failed answer is asked again at the next tick, not on every render.
  answers.set(key, { tick, promise });
  if (answers.size > 2000) answers.delete(answers.keys().next().value!);
  return promise;
}

type PhasesResponse = Answer<"/api/phases", { segments: Segment[] }>;
type ForecastResponse = Answer<"/api/forecast", Forecast>;
type DiagnosisResponse = Answer<"/api/diagnosis", { findings: Finding[]; checked?: Checked[] }>;

export function fetchPhases(run: string, tag: string, tick: number): Promise<Segment[]> {
  return cached<PhasesResponse>("/api/phases", { run, tag }, tick).then((r) => r.segments ?? []);
}

export function fetchForecast(run: string, tag: string, tick: number): Promise<Forecast> {
  return cached<ForecastResponse>("/api/forecast", { run, tag }, tick);
}

/** Every run's findings, and what was checked per group of runs. */
export async function fetchDiagnosis(tick: number): Promise<{ findings: Finding[]; checked: Checked[] }> {
  if (!(await insightsServed())) throw new Error("this server does not serve insights (no insights plugin)");
  const r = await cached<DiagnosisResponse>("/api/diagnosis", {}, tick);
  return { findings: r.findings ?? [], checked: r.checked ?? [] };
}
