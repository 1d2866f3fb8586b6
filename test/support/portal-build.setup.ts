/**
 * Builds the portal page (dist/portal) once before the suite: the hosts the tests start serve it, as
 * `npm start` does after `npm run build`. esbuild takes well under a second.
 */
export default async function setup(): Promise<void> {
  const { buildPortal } = await import("../../scripts/build-portal.mjs");
  await buildPortal();
}
