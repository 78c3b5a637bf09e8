/**
 * The confusion matrix dashboard: a card per tag (grouped by tag prefix) with one matrix per selected run, rows the
 * true classes and columns the predicted ones, at the step the card's slider chooses (the newest by default; a run
 * without that step shows its last one before it). Cells show counts or, toggled, the share of their row (each
 * true class's recall and where the rest went); their shade is always the row share. Clicking a cell names its
 * classes, count and row share. A step that is not an n×n matrix is named in the card.
 */
import { useMemo, useRef, useState } from "preact/hooks";
import type { DashboardProps, RunInfo } from "@app/types";
import { TagSections, entryAt, runsWithTag, tagsOf, useTagCard, wallTimeAt } from "@app/cards";
import { StepSlider } from "@media/StepSlider";
import { useReadyFlag } from "@charts/lazyCard";
import { useUrlState } from "@app/state";
import { cellDetails, cellShade, cellText, matrixOf, type Matrix, type MatrixStep } from "./model";

const KIND = "confusion_matrices";
/** Above this many classes the cells are too small for their numbers: they show only their shade. */
const MAX_LABELLED = 30;

export function ConfusionMatrixDashboard({ runs, tagFilter, tick }: DashboardProps) {
  const tags = useMemo(() => tagsOf(runs, KIND), [runs]);
  const [normalised, setNormalised] = useUrlState<boolean>("cm.normalised", false);
  return (
    <div class="rl-tc-page rl-cm">
      <TagSections
        tags={tags}
        tagFilter={tagFilter}
        stateKey="cm.collapsed"
        what="confusion matrices"
        gridClass="rl-tc-column"
        card={(tag) => (
          <MatrixCard
            key={tag}
            tag={tag}
            runs={runsWithTag(runs, KIND, tag)}
            tick={tick}
            normalised={normalised}
            setNormalised={setNormalised}
          />
        )}
      />
    </div>
  );
}

interface MatrixCardProps {
  tag: string;
  runs: RunInfo[];
  tick: number;
  normalised: boolean;
  setNormalised: (normalised: boolean) => void;
}

interface Selected {
  run: string;
  row: number;
  col: number;
}

function MatrixCard({ tag, runs, tick, normalised, setNormalised }: MatrixCardProps) {
  const id = `cm:${tag}`;
  const ref = useRef<HTMLDivElement>(null);
  const { data, errors, loaded, steps, index, setIndex, step } = useTagCard<MatrixStep>(
    ref,
    id,
    "/api/confusion_matrix",
    tag,
    runs,
    tick,
  );
  const [selected, setSelected] = useState<Selected | null>(null);
  const shown = useMemo(() => {
    const out: { run: RunInfo; entry: MatrixStep; matrix: Matrix | string }[] = [];
    for (const run of runs) {
      const entry = entryAt(data.get(run.run), step);
      if (entry) out.push({ run, entry, matrix: matrixOf(entry) });
    }
    return out;
  }, [runs, data, step]);
  const problems = [
    ...[...errors].map(([run, message]) => `${run}: ${message}`),
    ...shown.flatMap((s) => (typeof s.matrix === "string" ? [`${s.run.run}, step ${s.entry.step}: ${s.matrix}`] : [])),
  ];
  useReadyFlag(id, loaded);
  return (
    <div
      ref={ref}
      class="rl-tc-card rl-cm-card"
      data-testid="cm-card"
      data-tag={tag}
      data-ready={loaded ? "true" : "false"}
      data-step={step ?? ""}
      data-normalised={normalised ? "true" : "false"}
    >
      <div class="rl-tc-head">
        <h3 class="rl-tc-title">{tag}</h3>
        <div class="rl-cm-toggle" role="group" aria-label="Values shown">
          <button type="button" aria-pressed={!normalised} data-testid="cm-counts" onClick={() => setNormalised(false)}>
            Counts
          </button>
          <button type="button" aria-pressed={normalised} data-testid="cm-normalised" onClick={() => setNormalised(true)}>
            Row %
          </button>
        </div>
        <StepSlider steps={steps} index={index} onChange={setIndex} wallTime={wallTimeAt(data, step)} />
      </div>
      {problems.map((p) => (
        <p class="rl-tc-error" role="alert" key={p}>
          {p}
        </p>
      ))}
      {!loaded && <p class="rl-tc-note">loading…</p>}
      <div class="rl-cm-runs">
        {shown.map((s) =>
          typeof s.matrix === "string" ? null : (
            <RunMatrix
              key={s.run.run}
              run={s.run}
              step={s.entry.step}
              matrix={s.matrix}
              normalised={normalised}
              selected={selected?.run === s.run.run ? selected : null}
              select={(row, col) => setSelected({ run: s.run.run, row, col })}
            />
          ),
        )}
      </div>
    </div>
  );
}

interface RunMatrixProps {
  run: RunInfo;
  step: number;
  matrix: Matrix;
  normalised: boolean;
  selected: Selected | null;
  select: (row: number, col: number) => void;
}

function RunMatrix({ run, step, matrix, normalised, selected, select }: RunMatrixProps) {
  const n = matrix.names.length;
  const labelled = n <= MAX_LABELLED;
  const details = selected && selected.row < n && selected.col < n ? cellDetails(matrix, selected.row, selected.col) : null;
  return (
    <figure class="rl-cm-run" data-testid="cm-run" data-run={run.run} data-step={step}>
      <figcaption>
        <span class="rl-tc-swatch" style={{ background: run.colour }} />
        {run.run} <span class="rl-tc-muted">· step {step}</span>
      </figcaption>
      <div class="rl-cm-scroll">
        <table class={labelled ? "rl-cm-table" : "rl-cm-table rl-cm-dense"} data-testid="cm-matrix">
          <thead>
            <tr>
              <th class="rl-cm-corner" scope="col">
                true ↓ · predicted →
              </th>
              {matrix.names.map((name) => (
                <th scope="col" class="rl-cm-col" title={name} key={name}>
                  {labelled ? name : ""}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {matrix.counts.map((row, i) => (
              <tr key={matrix.names[i]}>
                <th scope="row" class="rl-cm-row" title={`${matrix.names[i]} (${matrix.rowTotals[i]} samples)`}>
                  {matrix.names[i]}
                </th>
                {row.map((_, j) => {
                  const shade = cellShade(matrix, i, j);
                  const active = selected?.row === i && selected?.col === j;
                  return (
                    <td key={j}>
                      <button
                        type="button"
                        class={active ? "rl-cm-cell rl-cm-active" : "rl-cm-cell"}
                        data-testid="cm-cell"
                        data-row={i}
                        data-col={j}
                        aria-pressed={active}
                        aria-label={`true ${matrix.names[i]}, predicted ${matrix.names[j]}: ${cellText(matrix, i, j, normalised)}`}
                        style={{ "--shade": shade.toFixed(3), color: shade > 0.55 ? "var(--accent-fg)" : undefined }}
                        onClick={() => select(i, j)}
                      >
                        {labelled ? cellText(matrix, i, j, normalised) : ""}
                      </button>
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {details ? (
        <p class="rl-cm-details" data-testid="cm-details" aria-live="polite">
          true <b data-field="true">{details.trueClass}</b>, predicted <b data-field="predicted">{details.predictedClass}</b>
          : <b data-field="count">{details.count}</b> of {details.rowTotal} (
          <b data-field="share">{details.rowShare}</b> of the row)
        </p>
      ) : (
        <p class="rl-cm-details rl-tc-muted">Click a cell for its classes and count.</p>
      )}
    </figure>
  );
}
