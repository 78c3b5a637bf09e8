/**
 * Markdown (text summaries, run notes) to safe HTML, shared by the text and Runs dashboards. Markdown (GitHub flavour: tables, fenced code, strikethrough) is rendered by
 * marked with every raw HTML tag escaped, so `<script>` or `<img onerror=...>` written into a summary shows as
 * the text it is; DOMPurify then sanitises the result as a second line of defence (e.g. `javascript:` links).
 */
import { Marked } from "marked";
import DOMPurify from "dompurify";

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

const marked = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    // Raw HTML in the markdown (a block or an inline tag) is shown as text, never interpreted.
    html({ text, block }) {
      const escaped = escapeHtml(text);
      return block ? `<p>${escaped}</p>\n` : escaped;
    },
  },
});

/** Markdown to HTML with raw HTML escaped (not yet sanitised: see {@link renderMarkdown}). */
export function markdownToHtml(source: string, inline = false): string {
  return inline ? (marked.parseInline(source, { async: false }) as string) : (marked.parse(source, { async: false }) as string);
}

/** Markdown to sanitised HTML, ready for innerHTML (browser only: DOMPurify needs a DOM). */
export function renderMarkdown(source: string, inline = false): string {
  return DOMPurify.sanitize(markdownToHtml(source, inline));
}
