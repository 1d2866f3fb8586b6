/** The Chromium to use (CHROMIUM_PATH, `chromium`, `chromium-browser`), or undefined when there is none. */
export function findChromium(): string | undefined;
/** The Chromium's path, installing Debian's `chromium` first when none is found (as root, with apt-get). */
export function ensureChromium(log?: (line: string) => void): Promise<string>;
