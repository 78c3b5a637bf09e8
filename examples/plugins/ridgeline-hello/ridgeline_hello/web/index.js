// The web half of ridgeline-hello: a "Hello" tab with the last value of each scalar tag of the selected runs, read
// from this plugin's own route, GET /api/plugins/hello/last?run=R. Plain JavaScript, no build step: ridgeline's
// page imports this file (served at api/plugin-web/hello/index.js) and calls its default export with the API
// object that holds everything it may use (docs/plugins.md, "The web half").

export default function dashboard(ridgeline) {
  const { h, useEffect, useState } = ridgeline;
  const swatch = (colour) => h("span", { class: "swatch", style: { background: colour, display: "inline-block" } });

  function Hello({ runs, tagFilter, tick }) {
    const [answers, setAnswers] = useState({}); // run -> {last: {tag: value}} or {error: message}
    const [digits, setDigits] = ridgeline.useUrlState("hello.digits", 4); // kept in the URL, like every setting
    const names = runs.map((r) => r.run);

    useEffect(() => {
      const controller = new AbortController();
      for (const run of names) {
        ridgeline
          .getJson("/api/plugins/hello/last", { run }, { signal: controller.signal })
          .then((answer) => setAnswers((now) => ({ ...now, [run]: { last: answer.last } })))
          .catch((error) => {
            if (error.name !== "AbortError") setAnswers((now) => ({ ...now, [run]: { error: error.message } }));
          });
      }
      return () => controller.abort();
    }, [names.join("\n"), tick]); // refetch when the selection changes, or a reload brought new data

    const rows = [];
    for (const { run, colour } of runs) {
      const answer = answers[run];
      if (answer?.error) {
        rows.push(h("tr", { key: run }, h("td", null, run), h("td", { colSpan: 2, role: "alert" }, answer.error)));
        continue;
      }
      const tags = Object.keys(answer?.last ?? {}).filter((tag) => !tagFilter || tagFilter.test(tag)).sort();
      for (const tag of tags) {
        rows.push(
          h(
            "tr",
            { key: `${run}\n${tag}`, "data-testid": "hello-row", "data-run": run, "data-tag": tag },
            h("td", null, swatch(colour), " ", run),
            h("td", null, tag),
            h("td", { class: "hello-value", style: { textAlign: "right" } }, format(answer.last[tag], digits)),
          ),
        );
      }
    }

    return h(
      "section",
      { "data-testid": "hello-dashboard", style: { padding: "12px 0" } },
      h(
        "label",
        null,
        "Significant digits ",
        h("input", {
          type: "number",
          min: 1,
          max: 12,
          value: digits,
          "data-testid": "hello-digits",
          onInput: (event) => {
            const n = Number(event.currentTarget.value);
            if (Number.isInteger(n) && n >= 1 && n <= 12) setDigits(n);
          },
        }),
      ),
      h(
        "table",
        { style: { marginTop: "12px", borderSpacing: "16px 4px" } },
        h("thead", null, h("tr", null, h("th", null, "Run"), h("th", null, "Tag"), h("th", null, "Last value"))),
        h("tbody", null, rows),
      ),
    );
  }

  return {
    title: "Hello",
    hasData: (runs) => runs.some((r) => (r.tags.scalars ?? []).length > 0),
    component: Hello,
  };
}

function format(value, digits) {
  return value === null ? "—" : Number(value).toPrecision(digits); // the server answers NaN and ±Inf as null
}
