import type { Source } from "../../shared/model/sources";
import type { Services } from "../../shared/domain/services";

/** Every incident the vendors hold for a workspace and source created before `until`, straight from the gateway. */
export async function vendorCount(services: Pick<Services, "sources">, workspaceId: string, source: Source, until: number): Promise<number> {
  let count = 0;
  let cursor: string | undefined;
  do {
    const page = await services.sources.gateway(source).listIncidents({
      workspaceId, field: "createdAt", from: new Date(0).toISOString(), to: new Date(until + 1).toISOString(), limit: 500, cursor,
    });
    count += page.items.length;
    cursor = page.cursor;
  } while (cursor);
  return count;
}
