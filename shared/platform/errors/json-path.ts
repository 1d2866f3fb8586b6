/** `["a", 0, "b"]` → `a[0].b`; the empty path is the object itself (""). The `errors` keys of a problem. */
export function jsonPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out.length === 0 ? String(part) : `.${String(part)}`;
  }
  return out;
}
