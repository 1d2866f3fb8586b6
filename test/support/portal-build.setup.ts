/**
 * Builds the portal page (dist/portal) once before the suite: the hosts the tests start serve it, as
 * `npm start` does after `npm run build`. esbuild takes well under a second. Every project extends
 * the root config and so names this setup; vitest runs each project's in the one main process, where
 * the first build is remembered, so a run builds once.
 */
const built = Symbol.for("secops.test.portal-built");

export default async function setup(): Promise<void> {
  const state = globalThis as { [built]?: Promise<unknown> };
  state[built] ??= import("../../scripts/build-portal.mjs").then(({ buildPortal }) => buildPortal());
  await state[built];
}
