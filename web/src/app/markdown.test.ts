import { describe, expect, it } from "vitest";
import { escapeHtml, markdownToHtml } from "./markdown";

describe("markdownToHtml", () => {
  it("renders GitHub tables", () => {
    const html = markdownToHtml("| a | b |\n|---|---|\n| 1 | 2 |\n");
    expect(html).toContain("<table>");
    expect(html).toContain("<td>2</td>");
  });

  it("shows raw HTML as text, block or inline", () => {
    const block = markdownToHtml("<script>window.x = 1</script>\n");
    expect(block).not.toContain("<script");
    expect(block).toContain("&lt;script&gt;window.x = 1&lt;/script&gt;");
    const inline = markdownToHtml('before <img src=x onerror="alert(1)"> after');
    expect(inline).not.toContain("<img");
    expect(inline).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
  });

  it("renders inline markdown for table cells", () => {
    expect(markdownToHtml("**bold** `code`", true)).toBe("<strong>bold</strong> <code>code</code>");
  });
});

describe("escapeHtml", () => {
  it("escapes the five HTML metacharacters", () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  });
});
