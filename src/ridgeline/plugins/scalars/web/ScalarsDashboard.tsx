/**
 * The scalars dashboard: a toolbar of settings (kept in the URL under "s."), pinned cards and a combined
 * two-axis chart on top, then one collapsible section per tag prefix with a card per tag. With thousands of
 * tags only the cards near the view are in the page (Sections.tsx).
 */
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import type { DashboardProps } from "@app/types";
import { Combobox } from "@app/Combobox";
import { colourFor, sequenceColours } from "@app/palette";
import { Card } from "@charts/card/ScalarCard";
import { CurveControls } from "@charts/lines/CurveControls";
import { fetchHparams } from "./hparams";
import { compareTags, groupRuns, groupTags, hparamNames } from "@charts/groups";
import { columnsFor, planSections } from "./layout";
import { Sections } from "./Sections";
import { useSettings } from "@charts/lines/settings";
import { SettingsBar } from "@app/SettingsBar";

const EAGER_CARDS = 16;
/** Estimated height of the toolbar above the first section (only used to guess what the first screen shows). */
const TOOLBAR = 110;

export function ScalarsDashboard({ runs, tagFilter, tick, theme }: DashboardProps) {
  const api = useSettings();
  const { settings, set } = api;
  const [expanded, setExpanded] = useState<string[]>([]);
  const [hparams, setHparams] = useState<Record<string, Record<string, unknown>>>({});
  // The pickers show the combined card's tags (also when it came from a shared link).
  const [combineA, setCombineA] = useState(api.combine[0] ?? "");
  const [combineB, setCombineB] = useState(api.combine[1] ?? "");
  useEffect(() => {
    if (api.combine.length === 2) {
      setCombineA(api.combine[0]);
      setCombineB(api.combine[1]);
    }
  }, [api.combine.join("\u0000")]);

  const allTags = useMemo(() => {
    const s = new Set<string>();
    for (const r of runs) for (const t of r.tags.scalars ?? []) s.add(t);
    return [...s].sort(compareTags);
  }, [runs]);
  const allTagSet = useMemo(() => new Set(allTags), [allTags]);
  const groups = useMemo(() => groupTags(allTags, tagFilter), [allTags, tagFilter]);
  const pinned = api.pinned.filter((t) => allTagSet.has(t));
  const pinnedSet = new Set(pinned);

  // Grid columns, from the dashboard's width (chunks are whole rows).
  const rootRef = useRef<HTMLDivElement>(null);
  const [columns, setColumns] = useState(() => columnsFor(window.innerWidth - 320));
  const [screen, setScreen] = useState(() => window.innerHeight);
  useLayoutEffect(() => {
    const el = rootRef.current;
    if (!el) return;
    const measure = () => {
      const style = getComputedStyle(el);
      const inner = el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      if (inner > 0) setColumns(columnsFor(inner));
      setScreen(window.innerHeight);
    };
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  useEffect(() => {
    if (settings.groupBy === "hparam") void fetchHparams(true).then(setHparams);
  }, [settings.groupBy, tick === 0]);
  const hpNames = useMemo(() => hparamNames(hparams), [hparams]);
  const runGroups = useMemo(() => {
    if (settings.groupBy === "none" || !settings.group) return { groups: null, error: null };
    return groupRuns(
      runs.map((r) => r.run),
      settings.groupBy,
      settings.group,
      hparams,
    );
  }, [runs, settings.groupBy, settings.group, hparams]);
  const groupMap = runGroups.error ? null : runGroups.groups;
  // "X axis: another tag…" with no tag chosen yet: the charts stay drawn against steps (a prompt says why).
  const chartSettings = useMemo(
    () => (settings.xAxis === "tag" && !settings.xTag ? { ...settings, xAxis: "step" as const } : settings),
    [settings],
  );
  // Groups take colours from a sequence of their own (the runs' would collide once their colours are taken).
  const groupColour = useMemo(() => sequenceColours(groupMap?.keys() ?? []), [groupMap]);

  // With few cards, draw them all at once (no loading flash while scrolling); with many, only what is seen.
  const eager = groups.reduce((n, g) => n + g.tags.length, 0) <= EAGER_CARDS;
  const toggle = (list: string[], item: string) => (list.includes(item) ? list.filter((x) => x !== item) : [...list, item]);
  // Stable callbacks (reading the latest lists through a ref), so memoised cards skip unrelated renders.
  const latest = useRef({ pinned: api.pinned, setPinned: api.setPinned, collapsed: api.collapsed, setCollapsed: api.setCollapsed });
  latest.current = { pinned: api.pinned, setPinned: api.setPinned, collapsed: api.collapsed, setCollapsed: api.setCollapsed };
  const onPin = useCallback((tag: string) => latest.current.setPinned(toggle(latest.current.pinned, tag)), []);
  const onExpand = useCallback((id: string) => setExpanded((list) => toggle(list, id)), []);
  const onToggleSection = useCallback((name: string) => latest.current.setCollapsed(toggle(latest.current.collapsed, name)), []);
  const expandedSet = useMemo(() => new Set(expanded), [expanded]);
  const card = (tag: string, eagerCard = eager) => (
    <Card
      key={tag}
      tag={tag}
      runs={runs}
      settings={chartSettings}
      groups={groupMap}
      groupColour={groupColour}
      tick={tick}
      theme={theme}
      pinned={pinnedSet.has(tag)}
      expanded={expandedSet.has(tag)}
      onPin={onPin}
      onExpand={onExpand}
      eager={eagerCard}
    />
  );
  const [ca, cb] = api.combine;
  const showCombined = !!ca && !!cb && allTagSet.has(ca) && allTagSet.has(cb);
  const combinedId = `${ca} ⇄ ${cb}`;

  const collapsedSet = useMemo(() => new Set(api.collapsed), [api.collapsed.join("\u0000")]);
  const planned = useMemo(() => {
    const sections = groups
      .map((g) => ({ name: g.name, items: g.tags.filter((t) => !pinnedSet.has(t)), open: !collapsedSet.has(g.name) }))
      .filter((g) => g.items.length > 0);
    const top = TOOLBAR + (showCombined || pinned.length ? 60 + Math.ceil((pinned.length + (showCombined ? 1 : 0)) / columns) * 274 : 0);
    return planSections(sections, columns, top);
  }, [groups, pinned.join("\u0000"), collapsedSet, columns, showCombined]);

  return (
    <div class="rl-scalars" ref={rootRef}>
      <SettingsBar label="Scalar chart settings">
        <CurveControls settings={settings} set={set} />
        <label class="rl-field">
          <span>X axis</span>
          <select data-testid="x-axis" value={settings.xAxis} onChange={(e) => set("xAxis", (e.target as HTMLSelectElement).value as never)}>
            <option value="step">step</option>
            <option value="relative">relative time</option>
            <option value="wall">wall time</option>
            <option value="tag">another tag…</option>
          </select>
        </label>
        {settings.xAxis === "tag" && (
          <label class="rl-field">
            <span>X tag</span>
            <Combobox testId="x-tag" label="X axis tag" placeholder="(choose a tag)" options={allTags} value={settings.xTag} onChange={(t) => set("xTag", t)} />
          </label>
        )}
        {settings.xAxis === "tag" && !settings.xTag && (
          <span class="rl-hint muted" data-testid="x-tag-prompt" role="status">
            Choose the tag to plot against: until then the charts use steps.
          </span>
        )}
        <label class="rl-field rl-check">
          <input type="checkbox" data-testid="x-log" checked={settings.xLog && settings.xAxis !== "wall"} disabled={settings.xAxis === "wall"} title={settings.xAxis === "wall" ? "Not for wall time" : undefined} onChange={(e) => set("xLog", (e.target as HTMLInputElement).checked)} />
          <span>Log x</span>
        </label>
        <label class="rl-field rl-check" title="Colour each loss curve's training phases behind it: warm-up red, descent amber, convergence green">
          <input type="checkbox" data-testid="toggle-phases" checked={settings.phases} onChange={(e) => set("phases", (e.target as HTMLInputElement).checked)} />
          <span>Phases</span>
        </label>
        <label class="rl-field rl-check" title="Extrapolate each curve over the next 20% of its steps: dashed, with its uncertainty band and the expected final value">
          <input type="checkbox" data-testid="toggle-forecast" checked={settings.forecast} onChange={(e) => set("forecast", (e.target as HTMLInputElement).checked)} />
          <span>Forecast</span>
        </label>
        <label class="rl-field">
          <span>Tooltip order</span>
          <select data-testid="tooltip-sort" value={settings.tooltipSort} onChange={(e) => set("tooltipSort", (e.target as HTMLSelectElement).value as never)}>
            <option value="nearest">nearest first</option>
            <option value="value-desc">value, high to low</option>
            <option value="value-asc">value, low to high</option>
            <option value="name">run name</option>
          </select>
        </label>
        <label class="rl-field">
          <span>Group runs</span>
          <select data-testid="group-by" value={settings.groupBy} onChange={(e) => set("groupBy", (e.target as HTMLSelectElement).value as never)}>
            <option value="none">no grouping</option>
            <option value="regex">by regex capture</option>
            <option value="hparam">by hyperparameter</option>
          </select>
        </label>
        {settings.groupBy === "regex" && (
          <label class="rl-field">
            <span>Group regex</span>
            <input type="text" data-testid="group-regex" placeholder="(lr=[^,]+)" value={settings.group} onChange={(e) => set("group", (e.target as HTMLInputElement).value)} aria-invalid={!!runGroups.error} />
            {runGroups.error && <span role="alert" class="rl-error">{runGroups.error}</span>}
          </label>
        )}
        {settings.groupBy === "hparam" && (
          <label class="rl-field">
            <span>Hyperparameter</span>
            <select data-testid="group-hparam" value={settings.group} onChange={(e) => set("group", (e.target as HTMLSelectElement).value)}>
              <option value="">(choose)</option>
              {hpNames.map((n) => (
                <option value={n}>{n}</option>
              ))}
            </select>
          </label>
        )}
        {settings.groupBy !== "none" && (
          <label class="rl-field">
            <span>Band</span>
            <select data-testid="group-band" value={settings.groupBand} onChange={(e) => set("groupBand", (e.target as HTMLSelectElement).value as never)}>
              <option value="std">mean ± σ</option>
              <option value="minmax">min – max</option>
            </select>
          </label>
        )}
        <fieldset class="rl-field rl-combine">
          <legend>Two tags, two y axes</legend>
          <Combobox testId="combine-left" label="Left axis tag" placeholder="(left tag)" options={allTags} value={combineA} onChange={setCombineA} />
          <Combobox testId="combine-right" label="Right axis tag" placeholder="(right tag)" options={allTags} value={combineB} onChange={setCombineB} />
          <button type="button" disabled={!combineA || !combineB || combineA === combineB} onClick={() => api.setCombine([combineA, combineB])}>
            Combine
          </button>
        </fieldset>
      </SettingsBar>

      {groupMap && groupMap.size > 0 && (
        <ul class="rl-group-legend" data-testid="group-legend" aria-label="Run groups">
          {[...groupMap].map(([label, members]) => (
            <li key={label} data-group={label} data-colour={groupColour(label)} title={members.join("\n")}>
              <span class="rl-group-swatch" style={{ background: groupColour(label) }} aria-hidden="true" />
              {label} <span class="muted">(n={members.length})</span>
            </li>
          ))}
        </ul>
      )}
      {allTags.length === 0 && <p class="rl-empty">The selected runs have no scalars.</p>}
      {allTags.length > 0 && groups.length === 0 && <p class="rl-empty">No scalar tag matches the tag filter.</p>}

      {(showCombined || pinned.length > 0) && (
        <section class="rl-group" aria-label="Pinned">
          <h2 class="rl-group-title">Pinned</h2>
          <div class="rl-grid">
            {showCombined && (
              <Card
                key={`combine:${ca}:${cb}`}
                tag={ca}
                tag2={cb}
                runs={runs}
                settings={chartSettings}
                groups={null}
                groupColour={colourFor}
                tick={tick}
                theme={theme}
                pinned
                expanded={expandedSet.has(combinedId)}
                onExpand={onExpand}
                onClose={() => api.setCombine([])}
              />
            )}
            {pinned.map((t) => card(t))}
          </div>
        </section>
      )}

      <Sections
        sections={planned}
        columns={columns}
        screen={screen * 1.5}
        eagerScreen={screen}
        eagerAll={eager}
        onToggle={onToggleSection}
        card={card}
      />
    </div>
  );
}
