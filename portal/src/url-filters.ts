import { navigate, useLocation } from "./router";

export type FilterValues = Record<string, string | readonly string[] | undefined>;

/**
 * A view's filters kept in its URL's query, so that a reload or a shared link shows the same view:
 * `params` are the filters in force, and `apply` navigates to the same path with new ones (empty
 * values left out, lists as the parameter repeated).
 */
export function useUrlFilters(): { params: URLSearchParams; key: string; apply(next: FilterValues): void } {
  const url = useLocation();
  return {
    params: url.searchParams,
    // What a view's reads depend on: the query as a string.
    key: url.search,
    apply(next) {
      const query = new URLSearchParams();
      for (const [name, value] of Object.entries(next)) {
        for (const one of typeof value === "string" ? [value] : (value ?? [])) if (one.trim() !== "") query.append(name, one.trim());
      }
      const search = query.toString();
      navigate(`${url.pathname}${search ? `?${search}` : ""}`);
    },
  };
}
