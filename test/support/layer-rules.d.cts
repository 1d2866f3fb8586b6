/** The folder kinds of docs/architecture.md; "other" for anything outside them. */
export type Kind = "functions" | "scripts" | "hosts" | "api" | "domain" | "systems" | "platform" | "model" | "other";

/** One import of a module: a repository-relative path (`.ts`) or a package name. */
export interface Import {
  to: string;
  /** `import type` only: erased at run time, but still a dependency of the design. */
  typeOnly: boolean;
  /** A package rather than a file of the repository. */
  external: boolean;
}

export function kindOf(file: string): Kind;
/** `shared/api/<group>/…` → the group; "" for anything else (the route tables included). */
export function groupOf(file: string): string;
/** `shared/systems/<system>/…` and `shared/platform/<port>/…` → that folder; "" otherwise. */
export function portFolderOf(file: string): string;
export function isSdk(specifier: string): boolean;
/** Which imports break which rule (every rule of one import at a time; the cycles are the import graph's). */
export function layerViolations(graph: Map<string, Import[]>): Record<string, string[]>;
