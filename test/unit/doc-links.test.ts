import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The README and the guides link to one another, to files of the tree and to pictures: every relative
 * link must reach a file, and every `#anchor` a heading (or an explicit `<a id>`) of its document, as
 * GitHub renders them, so that a reader following the guides never lands on nothing.
 */
const ROOT = path.resolve(__dirname, "../..");
const DOCUMENTS = ["README.md", ...readdirSync(path.join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const slug = heading[1]!
        .toLowerCase()
        .replace(/`/g, "")
        .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
        .replace(/[^\p{L}\p{N}\s_-]/gu, "")
        .replace(/\s/g, "-");
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      anchors.add(count === 0 ? slug : `${slug}-${count}`);
    }
    for (const id of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id[1]!);
  }
  return anchors;
}

/** The relative links and images of a document outside code: [text](target) and ![alt](target). */
function linksOf(markdown: string): string[] {
  const links: string[] = [];
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const prose = line.replace(/`[^`]*`/g, "");
    for (const m of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1]!;
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) links.push(target);
    }
  }
  return links;
}

describe("the README and the guides", () => {
  it("link only to files of the tree and to headings that exist", () => {
    const broken: string[] = [];
    const anchors = new Map<string, Set<string>>();
    const anchorsAt = (file: string) => anchors.get(file) ?? anchors.set(file, anchorsOf(readFileSync(file, "utf8"))).get(file)!;
    for (const document of DOCUMENTS) {
      const text = readFileSync(path.join(ROOT, document), "utf8");
      for (const link of linksOf(text)) {
        const [file, anchor] = link.split("#", 2) as [string, string | undefined];
        const target = file ? path.join(path.dirname(path.join(ROOT, document)), decodeURIComponent(file)) : path.join(ROOT, document);
        if (!existsSync(target)) {
          broken.push(`${document}: ${link} (no such file)`);
          continue;
        }
        if (anchor && target.endsWith(".md") && !anchorsAt(target).has(anchor)) broken.push(`${document}: ${link} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("are read by this check: a planted broken link and a planted missing heading are found", () => {
    expect(linksOf("see [x](docs/nowhere.md#a) and ![p](docs/screenshots/x.png), not `[y](z.md)` nor [w](https://e.org)")).toEqual(["docs/nowhere.md#a", "docs/screenshots/x.png"]);
    expect(anchorsOf("## An analyst's day\n## Roles\n## Roles\n<a id=\"d-001\"></a>")).toEqual(new Set(["an-analysts-day", "roles", "roles-1", "d-001"]));
  });
});
