/**
 * The text dashboard: a full-width card per text tag, grouped by tag prefix. A card shows, for each selected
 * run, the text at the chosen step (markdown rendered and sanitised, 2-D text tensors as tables); long texts
 * scroll inside a bounded box. A step that cannot be decoded shows its error; bytes that were not UTF-8 are
 * shown as U+FFFD with a note.
 */
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { DashboardProps, RunInfo } from "@app/types";
import { getJson } from "@api/client";
import { formatWallTime } from "@charts/format";
import { TagSections, entryAt, runsWithTag, tagsOf, useTagCard, wallTimeAt, type StepEntry } from "@app/cards";
import { StepSlider } from "@media/StepSlider";
import { useReadyFlag } from "@charts/lazyCard";
import { renderMarkdown } from "@app/markdown";
import type { Answer } from "@api/types";

export interface TextStep extends StepEntry {
  shape?: number[];
  text?: string;
  table?: string[][];
  warning?: string;
  invalid_utf8?: boolean;
}

type RunMetadata = Record<string, unknown>;

export function TextDashboard({ runs, tagFilter, tick }: DashboardProps) {
  const tags = useMemo(() => tagsOf(runs, "text"), [runs]);
  const [runInfo, setRunInfo] = useState<Record<string, RunMetadata>>({});
  useEffect(() => {
    getJson<Answer<"/api/text/runinfo", { runs: Record<string, RunMetadata> }>>("/api/text/runinfo").then(
      (r) => setRunInfo(r.runs),
      () => setRunInfo({}),
    );
  }, []);
  return (
    <div class="rl-tc-page rl-text">
      <TagSections
        tags={tags}
        tagFilter={tagFilter}
        stateKey="t.collapsed"
        what="text"
        gridClass="rl-tc-column"
        card={(tag) => (
          <TextCard
            key={tag}
            tag={tag}
            runs={runsWithTag(runs, "text", tag)}
            tick={tick}
            runInfo={runInfo}
          />
        )}
      />
    </div>
  );
}

interface TextCardProps {
  tag: string;
  runs: RunInfo[];
  tick: number;
  runInfo: Record<string, RunMetadata>;
}

function TextCard({ tag, runs, tick, runInfo }: TextCardProps) {
  const id = `text:${tag}`;
  const ref = useRef<HTMLDivElement>(null);
  const { data, errors, loaded, steps, index, setIndex, step } = useTagCard<TextStep>(ref, id, "/api/text", tag, runs, tick);
  useReadyFlag(id, loaded);
  return (
    <div
      ref={ref}
      class="rl-tc-card"
      data-testid="text-card"
      data-tag={tag}
      data-ready={loaded ? "true" : "false"}
      data-step={step ?? ""}
    >
      <div class="rl-tc-head">
        <h3 class="rl-tc-title">{tag}</h3>
        <StepSlider steps={steps} index={index} onChange={setIndex} wallTime={wallTimeAt(data, step)} />
      </div>
      {!loaded && <p class="rl-tc-note">loading…</p>}
      {loaded &&
        runs.map((r) => (
          <RunText
            key={r.run}
            run={r}
            entry={entryAt(data.get(r.run), step)}
            error={errors.get(r.run)}
            info={runInfo[r.run]}
          />
        ))}
    </div>
  );
}

function RunText({ run, entry, error, info }: { run: RunInfo; entry: TextStep | undefined; error?: string; info?: RunMetadata }) {
  return (
    <div class="rl-text-run" data-testid="text-run" data-run={run.run}>
      <div class="rl-text-run-head">
        <span class="rl-tc-swatch" style={{ background: run.colour }} />
        <span class="rl-text-run-name">{run.run}</span>
        {entry && (
          <span class="rl-tc-muted" title={formatWallTime(entry.wall_time)}>
            step {entry.step}
          </span>
        )}
        {info && <span class="rl-text-runinfo" data-testid="text-runinfo">{describeRun(info)}</span>}
      </div>
      {error !== undefined && (
        <p class="rl-tc-error" role="alert">
          {error}
        </p>
      )}
      {error === undefined && !entry && <p class="rl-tc-note">no text at or before this step</p>}
      {entry && <TextBody entry={entry} />}
    </div>
  );
}

function TextBody({ entry }: { entry: TextStep }) {
  if (entry.error !== undefined) {
    return (
      <p class="rl-tc-error" role="alert">
        {entry.error}
      </p>
    );
  }
  return (
    <>
      {entry.warning && <p class="rl-tc-note">{entry.warning}</p>}
      {entry.invalid_utf8 && (
        <p class="rl-tc-note" data-testid="text-invalid-utf8">
          Some bytes of this text are not valid UTF-8: they are shown as �.
        </p>
      )}
      <div class="rl-text-body" data-testid="text-body">
        {entry.table ? <TextTable rows={entry.table} /> : <Markdown source={entry.text ?? ""} />}
      </div>
    </>
  );
}

function Markdown({ source }: { source: string }) {
  const html = useMemo(() => renderMarkdown(source), [source]);
  return <div class="rl-markdown" dangerouslySetInnerHTML={{ __html: html }} />;
}

/** A rank-1 or rank-2 text tensor, like TensorBoard: one table row per first index, each cell markdown. */
function TextTable({ rows }: { rows: string[][] }) {
  return (
    <table class="rl-text-table">
      <tbody>
        {rows.map((row, i) => (
          <tr key={i}>
            {row.map((cell, j) => (
              <td key={j} dangerouslySetInnerHTML={{ __html: renderMarkdown(cell, true) }} />
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A one-line summary of what ridgeline's writer recorded about a run. */
export function describeRun(info: RunMetadata): string {
  const parts: string[] = [];
  if (typeof info.host === "string") parts.push(info.host);
  const git = info.git as Record<string, unknown> | null | undefined;
  if (git && typeof git.commit === "string") parts.push(`git ${git.commit.slice(0, 8)}${git.dirty ? " (dirty)" : ""}`);
  if (typeof info.python === "string") parts.push(`Python ${info.python}`);
  if (Array.isArray(info.command)) parts.push(info.command.map(String).join(" "));
  if (typeof info.start_time === "number") parts.push(`started ${formatWallTime(info.start_time)}`);
  return parts.join(" · ");
}
