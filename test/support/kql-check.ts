import type { LogCatalogue } from "./telemetry-catalog";

/**
 * Holds a Kusto query to the names it may use: the tables it reads, the columns of those tables, the
 * log messages it filters on, the `customDimensions` fields it reads and the string values it compares
 * them with. Not a Kusto parser: it reads the few shapes the service's queries use, which the tests
 * of this module pin, and reports what it cannot place rather than guess.
 */
export interface QueryNames {
  /** Tables the query may read, each with its columns. */
  tables: Record<string, readonly string[]>;
  /** Columns of other tables of the same kind, to catch one used on a table that lacks it (`url` on `traces`). */
  foreignColumns?: readonly string[];
  /** The log records, for `message` and `customDimensions` (a `traces` query). */
  logs?: LogCatalogue;
  /** Values a field takes that no type can say: field → values (`functionName` → the registered functions). */
  fieldValues?: Record<string, readonly string[]>;
  /** Capitalised identifiers are columns (Log Analytics tables): every one must be a column, the table or an alias. */
  capitalisedColumns?: boolean;
}

export interface QueryReferences {
  tables: string[];
  messages: { op: string; value: string }[];
  fields: string[];
  fieldValues: { field: string; value: string }[];
  identifiers: string[];
  aliases: string[];
}

/** What a query names, read from its text. */
export function queryReferences(query: string): QueryReferences {
  const code = stripComments(query);
  const strings: string[] = [];
  // Strings out of the way of the identifier scan, each remembered by its index.
  const blanked = code.replace(/"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'/g, (_m, d: string | undefined, s: string | undefined) => {
    strings.push(d ?? s ?? "");
    return `⟦${strings.length - 1}⟧`;
  });
  const str = (token: string) => strings[Number(/⟦(\d+)⟧/.exec(token)![1])]!;
  const listed = (list: string) => [...list.matchAll(/⟦\d+⟧/g)].map((m) => str(m[0]));

  const tables = [
    ...[...blanked.matchAll(/^\s*([A-Za-z_]\w*)\s*(?=\||$)/g)].map((m) => m[1]!),
    ...[...blanked.matchAll(/\(\s*([A-Za-z_]\w*)\s*\|/g)].map((m) => m[1]!),
  ];
  const messages = [
    ...[...blanked.matchAll(/\bmessage\s*(==|=~|!=|has|contains|startswith|endswith)\s*(⟦\d+⟧)/gi)].map((m) => ({ op: m[1]!, value: str(m[2]!) })),
    ...[...blanked.matchAll(/\bmessage\s+(in|!in)\s*\(([^)]*)\)/gi)].flatMap((m) => listed(m[2]!).map((value) => ({ op: m[1]!, value }))),
  ];
  const fields = [
    ...[...blanked.matchAll(/\bcustomDimensions\s*\.\s*([A-Za-z_]\w*)/g)].map((m) => m[1]!),
    ...[...blanked.matchAll(/\bcustomDimensions\s*\[\s*(⟦\d+⟧)\s*\]/g)].map((m) => str(m[1]!)),
  ];
  const fieldValues = [
    ...[...blanked.matchAll(/\bcustomDimensions\.(\w+)\s*\)?\s*(?:==|=~|!=)\s*(⟦\d+⟧)/g)].map((m) => ({ field: m[1]!, value: str(m[2]!) })),
    ...[...blanked.matchAll(/\bcustomDimensions\.(\w+)\s*\)?\s*!?in\s*\(([^)]*)\)/g)].flatMap((m) => listed(m[2]!).map((value) => ({ field: m[1]!, value }))),
  ];
  // Names that stand on their own: not after a dot (a field, a property), not a function call.
  const identifiers = [...blanked.matchAll(/(?<![.\w⟦])([A-Za-z_]\w*)\b(?!\s*\()/g)].map((m) => m[1]!);
  const aliases = [...blanked.matchAll(/(?<![.\w])([A-Za-z_]\w*)\s*=(?![=~])/g)].map((m) => m[1]!);
  return { tables, messages, fields, fieldValues, identifiers, aliases };
}

/** Everything `query` names that `names` does not have; empty when the query is sound. */
export function queryProblems(query: string, names: QueryNames): string[] {
  const refs = queryReferences(query);
  const problems: string[] = [];
  if (refs.tables.length === 0) problems.push("reads no table it could find");
  const tables = [...new Set(refs.tables)];
  for (const table of tables) if (!names.tables[table]) problems.push(`table ${table} is not one the service emits`);
  const columns = new Set(tables.flatMap((t) => names.tables[t] ?? []));
  const aliases = new Set(refs.aliases);
  // Columns only of tables it knows: a table it does not know is the problem already.
  for (const id of tables.every((t) => names.tables[t]) ? new Set(refs.identifiers) : []) {
    if (columns.has(id) || aliases.has(id) || tables.includes(id)) continue;
    if (names.foreignColumns?.includes(id)) problems.push(`column ${id} is not a column of ${tables.join(", ")}`);
    else if (names.capitalisedColumns && /^[A-Z]/.test(id)) problems.push(`column ${id} is not a column of ${tables.join(", ")}`);
  }

  const logs = names.logs;
  const readsLogs = refs.messages.length > 0 || refs.fields.length > 0;
  if (readsLogs && !logs) problems.push("reads log records, but no log catalogue was given");
  if (!logs) return problems;
  const filtered = refs.messages.filter((m) => ["==", "=~", "in"].includes(m.op.toLowerCase()));
  for (const { op, value } of refs.messages) {
    const exact = ["==", "=~", "!=", "in", "!in"].includes(op.toLowerCase());
    const found = exact ? logs.has(value) : [...logs.keys()].some((m) => matchesLoosely(m, op, value));
    if (!found) problems.push(`message "${value}" (${op}) is not one the code writes`);
  }
  // A field must be written with one of the messages the query keeps, or with some message if it keeps any.
  const kinds = filtered.length > 0 ? filtered.map((m) => logs.get(m.value)).filter((k) => k !== undefined) : [...logs.values()];
  for (const field of new Set(refs.fields)) {
    if (!kinds.some((k) => k.fields.has(field))) {
      problems.push(`field customDimensions.${field} is not written with ${filtered.length > 0 ? filtered.map((m) => `"${m.value}"`).join(" or ") : "any message"}`);
    }
  }
  for (const { field, value } of refs.fieldValues) {
    const declared = names.fieldValues?.[field];
    if (declared) {
      if (!declared.includes(value)) problems.push(`customDimensions.${field} is never "${value}"`);
      continue;
    }
    const sets = kinds.filter((k) => k.fields.has(field)).map((k) => k.fields.get(field));
    // A field whose type is a free string can hold the value; one of literal values must list it.
    if (sets.length > 0 && sets.every((s) => s !== undefined) && !sets.some((s) => s!.has(value))) {
      problems.push(`customDimensions.${field} is never "${value}" (it is ${sets.flatMap((s) => [...s!]).map((v) => `"${v}"`).join(", ")})`);
    }
  }
  return problems;
}

function matchesLoosely(message: string, op: string, value: string): boolean {
  const m = message.toLowerCase();
  const v = value.toLowerCase();
  if (op === "startswith") return m.startsWith(v);
  if (op === "endswith") return m.endsWith(v);
  return m.includes(v);
}

/** Removes `//` comments, leaving strings (which may hold `//`) alone. */
export function stripComments(query: string): string {
  let out = "";
  for (let i = 0; i < query.length; ) {
    const ch = query[i]!;
    if (ch === '"' || ch === "'") {
      let j = i + 1;
      while (j < query.length && query[j] !== ch) j += query[j] === "\\" ? 2 : 1;
      out += query.slice(i, j + 1);
      i = j + 1;
    } else if (query.startsWith("//", i)) {
      while (i < query.length && query[i] !== "\n") i++;
    } else {
      out += ch;
      i++;
    }
  }
  return out;
}
