import type { OnboardBody, SourceName, Workspace } from "./workspace-model";
import { SOURCE_NAMES } from "./workspace-model";

type SourcesBody = NonNullable<OnboardBody["sources"]>;

/** One source's settings as a form edits them. */
export interface SourceDraft {
  enabled: boolean;
  vendorWorkspaceId: string;
  bridgeUrl: string;
  authorization: string;
  removeAuthorization: boolean;
  hasAuthorization: boolean;
}

export type SourcesDraft = Record<SourceName, SourceDraft>;

export function sourcesDraft(w?: Workspace): SourcesDraft {
  return Object.fromEntries(
    SOURCE_NAMES.map((s) => {
      const v = w?.sources[s];
      return [
        s,
        {
          enabled: v?.enabled ?? true,
          vendorWorkspaceId: v?.vendorWorkspaceId ?? "",
          bridgeUrl: v?.bridge?.url ?? "",
          authorization: "",
          removeAuthorization: false,
          hasAuthorization: v?.bridge?.hasAuthorization ?? false,
        },
      ];
    }),
  ) as SourcesDraft;
}

/** The sources of a new workspace that differ from the defaults (on, the deployment's system, its own id). */
export function onboardingSources(draft: SourcesDraft): SourcesBody | undefined {
  const body: Record<string, unknown> = {};
  for (const s of SOURCE_NAMES) {
    const d = draft[s];
    if (d.enabled && !d.vendorWorkspaceId && !d.bridgeUrl) continue;
    body[s] = {
      enabled: d.enabled,
      ...(d.vendorWorkspaceId ? { vendorWorkspaceId: d.vendorWorkspaceId } : {}),
      ...(d.bridgeUrl ? { bridge: { url: d.bridgeUrl, ...(d.authorization ? { authorization: d.authorization } : {}) } } : {}),
    };
  }
  return Object.keys(body).length > 0 ? (body as SourcesBody) : undefined;
}

/**
 * The sources of a workspace whose settings the form changed, each with every field: an emptied
 * identifier or bridge goes back to the default (null); a bridge's kept Authorization value stays
 * unless a new one is typed or its removal asked for.
 */
export function changedSourcesBody(before: Workspace, draft: SourcesDraft): SourcesBody | undefined {
  const body: Record<string, unknown> = {};
  for (const s of SOURCE_NAMES) {
    const d = draft[s];
    const was = before.sources[s];
    const changed =
      d.enabled !== was.enabled || d.vendorWorkspaceId !== (was.vendorWorkspaceId ?? "") || d.bridgeUrl !== (was.bridge?.url ?? "") || d.authorization !== "" || d.removeAuthorization;
    if (!changed) continue;
    body[s] = {
      enabled: d.enabled,
      vendorWorkspaceId: d.vendorWorkspaceId ? d.vendorWorkspaceId : null,
      bridge: d.bridgeUrl ? { url: d.bridgeUrl, ...(d.removeAuthorization ? { authorization: null } : d.authorization ? { authorization: d.authorization } : {}) } : null,
    };
  }
  return Object.keys(body).length > 0 ? (body as SourcesBody) : undefined;
}
