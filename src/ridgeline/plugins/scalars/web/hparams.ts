/** The runs' hyperparameters, for grouping runs by one (asked once, and again when the dashboard says so). */
import { getJson } from "@api/client";
import type { Answer } from "@api/types";

let hparamsPromise: Promise<Record<string, Record<string, unknown>>> | null = null;

/** Every run's hyperparameters ({} when the server has none). */
export function fetchHparams(refresh = false): Promise<Record<string, Record<string, unknown>>> {
  if (!hparamsPromise || refresh) {
    hparamsPromise = getJson<Answer<"/api/hparams", { runs: Record<string, Record<string, unknown>> }>>("/api/hparams").then(
      (r) => r.runs ?? {},
      () => ({}),
    );
  }
  return hparamsPromise;
}
