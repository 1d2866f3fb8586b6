// The catalogue's unit of work is the domain's (the demo seed changes the catalogue through it too).
export { changeCatalogue, emptyCatalogue, readCatalogue, type CatalogueAudit } from "../../../domain/gamebooks/catalogue-changes";

/** The ETag header of a catalogue's version, where it has one. */
export function etagHeader(etag: string | null): Record<string, string> {
  return etag === null ? {} : { ETag: etag };
}
