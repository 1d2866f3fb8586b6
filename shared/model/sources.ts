import { z } from "zod";

/**
 * The incident sources, in the order of the contract's list: each one's wire value (`name`) and the
 * key of its deployment settings (`SOURCE_<key>_URL`, `SOURCE_<key>_MAX_RPS`, …). Renaming a source to
 * its vendor's product name is an edit of its `name` and nothing else: the key stays, so deployments
 * keep their settings. Adding a source is one more entry.
 */
const sourceTable = [
  { name: "SourceA", settingKey: "A" },
  { name: "SourceB", settingKey: "B" },
  { name: "SourceC", settingKey: "C" },
  { name: "SourceD", settingKey: "D" },
  { name: "SourceE", settingKey: "E" },
  { name: "SourceF", settingKey: "F" },
  { name: "SourceG", settingKey: "G" },
] as const;

/** The names of the table's entries, still a tuple (`z.enum` takes it as is). */
type Names<T extends readonly { name: string }[]> = { readonly [K in keyof T]: T[K]["name"] };

/** The wire values, in the contract's order. */
export const sources = sourceTable.map((s) => s.name) as unknown as Names<typeof sourceTable>;
export type Source = (typeof sources)[number];
export type SourceSettingKey = (typeof sourceTable)[number]["settingKey"];

const settingKeys = new Map<Source, SourceSettingKey>(sourceTable.map((s) => [s.name, s.settingKey]));

/** The key that names a source's deployment settings: `A` for `SOURCE_A_URL`. */
export function sourceSettingKey(source: Source): SourceSettingKey {
  return settingKeys.get(source)!;
}

/**
 * docs/contract.md §2.3: the comments paths (and the gamebooks' by-incident path) take only the first six
 * sources; every other source path takes all seven.
 */
export const commentPathSources: readonly Source[] = sources.slice(0, 6);
/** The sources whose vendors can list by last-modified time (docs/contract.md §4.2, `filterByLastModified`). */
export const lastModifiedSources: readonly Source[] = ["SourceA", "SourceB"];

/**
 * The names this deployment shows for its sources (`SOURCE_<X>_DISPLAY_NAME`): in the portal's pages
 * and as events' `sourceDisplayName` (docs/contract.md §6.5), while the path value stays `SourceA`…. They are
 * constants of the deployment, like the table above, and events are built by pure functions far
 * from the services: the composition root sets them once, at start.
 */
const displayNames = new Map<Source, string>();

/** Sets the deployment's display names; a source left out is shown by its path value. */
export function nameSources(names: Partial<Record<Source, string>>): void {
  displayNames.clear();
  for (const source of sources) {
    const name = names[source];
    if (name !== undefined) displayNames.set(source, name);
  }
}

/** The name this deployment shows for a source: its configured display name, else its path value. */
export function sourceDisplayName(source: Source): string {
  return displayNames.get(source) ?? source;
}

/** Every source's display name, in the contract's order. */
export function sourceDisplayNames(): Record<Source, string> {
  return Object.fromEntries(sources.map((s) => [s, sourceDisplayName(s)])) as Record<Source, string>;
}

const byLowerCase = new Map<string, Source>(sources.map((s) => [s.toLowerCase(), s]));

/** The canonical value for a case-insensitive spelling, e.g. a webhook event's lower-case `source`. */
export function parseSource(value: string): Source | undefined {
  return byLowerCase.get(value.toLowerCase());
}

/**
 * A zod schema for a source accepted case-insensitively and returned in its canonical PascalCase.
 * A value outside `accepted` fails with a message naming every accepted value.
 */
export function sourceSchema(accepted: readonly Source[] = sources) {
  const message = `Must be one of ${accepted.join(", ")} (case-insensitive).`;
  return z
    .string()
    .transform((value, ctx) => {
      const source = parseSource(value);
      if (source && accepted.includes(source)) return source;
      ctx.addIssue({ code: "custom", message });
      return z.NEVER;
    })
    .pipe(z.enum(accepted as [Source, ...Source[]]))
    .describe(message);
}
