import { z } from "zod";

/**
 * The incident sources, in the order of the contract's list. These are the wire values: renaming
 * them to the vendors' product names is an edit of this table and nothing else.
 */
export const sources = ["SourceA", "SourceB", "SourceC", "SourceD", "SourceE", "SourceF", "SourceG"] as const;
export type Source = (typeof sources)[number];

/**
 * Contract 2.3: the comments paths (and the gamebooks' by-incident path) take only the first six
 * sources; every other source path takes all seven.
 */
export const commentPathSources: readonly Source[] = sources.slice(0, 6);
/** The sources whose vendors can list by last-modified time (contract 4.2, `filterByLastModified`). */
export const lastModifiedSources: readonly Source[] = ["SourceA", "SourceB"];

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
