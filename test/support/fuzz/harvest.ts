import { collectionOf, type Operation } from "./operations";

const PER_NAME = 12;

/**
 * Real values to aim at, collected from the service's own answers to GET operations: every string
 * property by name (`workspaceId`, `continuationToken`, ...) and the `id`s of each listed collection
 * under `@<collection path>`. Starts with the operations that need no path parameters, then those
 * whose parameters the values found so far can fill. Values in `exclude` (the fuzz suite's own
 * account and credentials) are never collected, so the suite cannot lock itself out.
 */
export async function harvestValues(
  operations: Operation[],
  request: (method: string, path: string, body?: unknown) => Promise<unknown>,
  exclude: ReadonlySet<string>,
  sampleBodies: (op: Operation) => unknown[],
): Promise<Map<string, string[]>> {
  const pool = new Map<string, string[]>();
  const visited = new Set<string>();
  for (let round = 0; round < 3; round++) {
    // Portal operations are read only: a generated change there could end the suite's own session.
    for (const op of operations.filter((o) => (o.scope !== undefined && (o.method === "GET" || (o.method === "POST" && o.body))) || (o.portal && o.method === "GET"))) {
      const path = fillPath(op, pool);
      const key = `${op.method} ${path}`;
      if (!path || visited.has(key)) continue;
      visited.add(key);
      if (op.method === "GET") {
        const body = await request("GET", path);
        collect(pool, body, exclude);
        const data = (body as { data?: unknown } | undefined)?.data;
        if (Array.isArray(data)) {
          for (const item of data) if (typeof (item as { id?: unknown })?.id === "string") add(pool, `@${op.template}`, (item as { id: string }).id, exclude);
        }
        // Then one item per page, so that listings issue a continuation token to tamper with.
        if (op.queryParams.some((p) => p.name === "pageSize")) collect(pool, await request("GET", `${path}?pageSize=1`), exclude);
      } else {
        // Searches and creations answer with records (incidents, ids) no GET lists.
        for (const body of sampleBodies(op)) collect(pool, await request("POST", path, body), exclude);
      }
    }
  }
  return pool;
}

function add(pool: Map<string, string[]>, key: string, value: string, exclude: ReadonlySet<string>): void {
  if (exclude.has(value.toLowerCase()) || value.length > 4096) return;
  const list = pool.get(key) ?? [];
  if (list.length < PER_NAME && !list.includes(value)) pool.set(key, [...list, value]);
}

function collect(pool: Map<string, string[]>, value: unknown, exclude: ReadonlySet<string>): void {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) stack.push(...node);
    else if (node && typeof node === "object") {
      for (const [key, child] of Object.entries(node)) {
        if (typeof child === "string") add(pool, key, child, exclude);
        else stack.push(child);
      }
    }
  }
}

/** The operation's path with every parameter taken from the pool, or undefined if one cannot be. */
export function fillPath(op: Operation, pool: ReadonlyMap<string, readonly string[]>, pick = 0): string | undefined {
  let path = op.template;
  for (const p of op.pathParams) {
    const candidates = candidatesFor(op, p.name, pool);
    const enumValues = p.schema?.enum as string[] | undefined;
    const value = candidates[pick % Math.max(1, candidates.length)] ?? enumValues?.[0];
    if (value === undefined) return undefined;
    path = path.replace(`{${p.name}}`, encodeURIComponent(value));
  }
  return path;
}

export function candidatesFor(op: Operation, name: string, pool: ReadonlyMap<string, readonly string[]>): string[] {
  return [...(pool.get(`@${collectionOf(op.template, name)}`) ?? []), ...(pool.get(name) ?? [])];
}
