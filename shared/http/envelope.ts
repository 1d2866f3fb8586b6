import type { Pagination } from "./route";

export interface Meta {
  requestId: string;
  timestamp: string;
}

/** Contract 2.1: `{data, meta}` plus `pagination` on lists. */
export function envelope(data: unknown, meta: Meta, pagination?: Pagination) {
  return pagination ? { data, meta, pagination } : { data, meta };
}
