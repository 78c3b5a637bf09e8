/**
 * A name cut in the middle when it does not fit, so the end that tells similar names apart stays visible
 * (`sweep_05_transformer-b…cosine_seed3`, not `sweep_05_transformer-b…` for every run of a sweep). Pure CSS:
 * the head shrinks with an ellipsis, the tail never does; the full name is the title (hover) and the text a
 * screen reader reads.
 */

/** How many characters at the end always stay visible (at most half the name). */
export const TAIL_CHARS = 16;

/** The name split into the part that may be cut and the tail that stays. */
export function splitName(name: string, tail = TAIL_CHARS): [string, string] {
  const keep = Math.min(tail, Math.floor(name.length / 2));
  return [name.slice(0, name.length - keep), name.slice(name.length - keep)];
}

export function MiddleEllipsis(props: { text: string; class?: string; title?: string }) {
  const [head, tail] = splitName(props.text);
  return (
    <span class={props.class ? `rl-mid ${props.class}` : "rl-mid"} title={props.title ?? props.text} data-name={props.text}>
      <span class="rl-mid-head">{head}</span>
      <span class="rl-mid-tail">{tail}</span>
    </span>
  );
}
