import { fieldProblem } from "../portal-access";
import type { SourceRegistry } from "../../../systems/vendors/port";
import { allSourceSettings, type WorkspaceSourceSettings, type WorkspaceSources } from "../../../model/organizations/workspace-sources";
import type { WorkspaceRecord } from "../../../model/organizations/workspace";
import { sources, type Source } from "../../../model/sources";
import type { SourcesInput, WorkspaceView } from "./workspace-schemas";

/**
 * A bridge's base URL as the service will call it, or the problem with it: HTTPS (plain HTTP only
 * where `WORKSPACE_BRIDGES_ALLOW_HTTP` allows it, for local testing), with no user name or password
 * (the credential is the sealed Authorization value), no query and no fragment.
 */
function bridgeUrl(raw: string, allowHttp: boolean, field: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw fieldProblem(field, "Must be an absolute URL, e.g. https://bridge.example.com/source-a.");
  }
  if (url.protocol !== "https:" && !(allowHttp && url.protocol === "http:")) {
    throw fieldProblem(field, allowHttp ? "Must be an http or https URL." : "Must be an https URL (WORKSPACE_BRIDGES_ALLOW_HTTP allows http, for local testing only).");
  }
  if (url.username || url.password) throw fieldProblem(field, "Must not carry a user name or password: send the credential as authorization.");
  if (url.search || url.hash) throw fieldProblem(field, "Must not have a query or a fragment.");
  return url.href.replace(/\/+$/, "");
}

/**
 * A workspace's source settings after a change: each source named takes the fields sent and keeps the
 * others. A bridge's Authorization value is sealed; one not sent stays only while the bridge's URL
 * stays the same, so that a kept secret never goes to a new address. A source back at its defaults
 * (on, the deployment's system, its own id) is not kept.
 */
export function changedSources(
  current: WorkspaceSources | undefined,
  change: SourcesInput | undefined,
  options: { seal: (value: string) => string; allowHttp: boolean },
): WorkspaceSources {
  const next: WorkspaceSources = { ...current };
  for (const source of sources) {
    const asked = change?.[source];
    if (!asked) continue;
    const was = current?.[source];
    const settings: WorkspaceSourceSettings = { ...was, enabled: asked.enabled ?? was?.enabled ?? true };
    if (asked.vendorWorkspaceId === null) delete settings.vendorWorkspaceId;
    else if (asked.vendorWorkspaceId !== undefined) settings.vendorWorkspaceId = asked.vendorWorkspaceId;
    if (asked.bridge === null) delete settings.bridge;
    else if (asked.bridge !== undefined) {
      const url = bridgeUrl(asked.bridge.url, options.allowHttp, `sources.${source}.bridge.url`);
      const authorization =
        asked.bridge.authorization === null
          ? undefined
          : asked.bridge.authorization !== undefined
            ? options.seal(asked.bridge.authorization)
            : was?.bridge?.url === url
              ? was.bridge.authorization
              : undefined;
      settings.bridge = authorization === undefined ? { url } : { url, authorization };
    }
    if (settings.enabled && settings.vendorWorkspaceId === undefined && settings.bridge === undefined) delete next[source];
    else next[source] = settings;
  }
  return next;
}

/** What an audit event may say of the settings: never the Authorization value, only whether there is one. */
export function sourcesSummary(settings: WorkspaceSources | undefined): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(settings ?? {}).map(([source, s]) => [
      source,
      { enabled: s.enabled, vendorWorkspaceId: s.vendorWorkspaceId ?? null, bridgeUrl: s.bridge?.url ?? null, hasAuthorization: s.bridge?.authorization !== undefined },
    ]),
  );
}

/** Every source of the workspace as the portal shows it. */
export function sourcesView(workspace: WorkspaceRecord, registry: Pick<SourceRegistry, "isEnabledFor">): WorkspaceView["sources"] {
  return Object.fromEntries(
    allSourceSettings(workspace).map(([source, s]) => [
      source,
      {
        enabled: s.enabled,
        vendorWorkspaceId: s.vendorWorkspaceId ?? null,
        bridge: s.bridge ? { url: s.bridge.url, hasAuthorization: s.bridge.authorization !== undefined } : null,
        inEffect: registry.isEnabledFor(workspace, source),
      },
    ]),
  ) as Record<Source, WorkspaceView["sources"][Source]>;
}
