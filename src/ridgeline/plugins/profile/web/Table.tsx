/** A sortable table: a click on a header sorts by that column (again: the other way). */
import { useMemo, useState } from "preact/hooks";

export interface Column<T> { key: string; label: string; value: (row: T) => number | string; show?: (row: T) => string }

export function SortableTable<T>({ rows, columns, initial, testid, onRow }: {
  rows: T[]; columns: Column<T>[]; initial: string; testid: string; onRow?: (row: T) => void;
}) {
  const [sort, setSort] = useState<{ key: string; descending: boolean }>({ key: initial, descending: true });
  const sorted = useMemo(() => {
    const column = columns.find((c) => c.key === sort.key) ?? columns[0];
    const copy = [...rows];
    copy.sort((a, b) => {
      const x = column.value(a), y = column.value(b);
      const order = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
      return sort.descending ? -order : order;
    });
    return copy;
  }, [rows, columns, sort]);
  return (
    <table class="pf-table" data-testid={testid}>
      <thead>
        <tr>
          {columns.map((c) => (
            <th
              key={c.key}
              data-key={c.key}
              aria-sort={sort.key === c.key ? (sort.descending ? "descending" : "ascending") : "none"}
              onClick={() => setSort({ key: c.key, descending: sort.key === c.key ? !sort.descending : true })}
            >
              {c.label}
              {sort.key === c.key ? (sort.descending ? " ▾" : " ▴") : ""}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {sorted.slice(0, 500).map((row, i) => (
          <tr key={i} onClick={onRow ? () => onRow(row) : undefined} class={onRow ? "pf-clickable" : ""}>
            {columns.map((c) => (
              <td key={c.key} data-key={c.key}>{c.show ? c.show(row) : String(c.value(row))}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
