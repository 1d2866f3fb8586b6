/** Types of build-portal.mjs, for the TypeScript that imports it (the test suite's setup). */
export function buildPortal(outDir?: string): Promise<{ outDir: string; files: string[]; bytes: number }>;
