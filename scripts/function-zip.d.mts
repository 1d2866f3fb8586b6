// Types of scripts/function-zip.mjs, for the tests that import it.

/** The name of the ignore file azd reads in the folder it zips. */
export const FUNCIGNORE_FILE: ".funcignore";

/** The package's .funcignore. */
export const FUNCIGNORE: string;

/** Writes the .funcignore into the package folder. */
export function writeFuncignore(outDir: string): void;

/** Whether a `/`-separated path relative to the folder is left out by the given .funcignore text. */
export function ignoreMatcher(text: string): (relativePath: string, isDirectory: boolean) => boolean;

/** The files, sorted, of the zip azd makes of `dir`. */
export function zipEntries(dir: string, options?: { remoteBuild?: boolean }): string[];
