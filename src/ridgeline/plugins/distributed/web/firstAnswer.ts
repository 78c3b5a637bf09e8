/**
 * The distributed run list with the first chart's series (`/api/distributed/runs?first_chart=`) that boot.js asked
 * for when the URL opened this tab. Taken when the app's script runs (this module loads with the dashboard) and
 * parsed as soon as it arrives, so the dashboard's first render can draw from it instead of asking in an effect,
 * which runs only after a paint of the shell.
 */
import { takePrefetched } from "@api/client";
import type { RunsAnswer } from "./model";

const started = takePrefetched<RunsAnswer>("api/distributed/runs");
let used = false;
let arrived: RunsAnswer | null = null;
/** Settles (never rejects) once boot.js's answer is in or failed, at once when it asked for none. */
export const firstAnswerSettled: Promise<void> = started
  ? started.then(
      (answer) => {
        if (!used) arrived = answer;
      },
      () => undefined, // reported by whoever takes the request below
    )
  : Promise.resolve();

/** The answer once, as it is now: arrived (`now`), still under way (`later`), or null when there is none. */
export function takeFirstAnswer(): { now: RunsAnswer } | { later: Promise<RunsAnswer> } | null {
  if (used || !started) return null;
  used = true;
  const answer = arrived;
  arrived = null;
  return answer ? { now: answer } : { later: started };
}
