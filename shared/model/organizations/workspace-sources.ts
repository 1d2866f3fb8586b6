import { sources, type Source } from "../sources";

/**
 * A workspace's own bridge for one source (docs/vendor-bridge.md): the base URL and, sealed with the
 * service's secret box, the whole `Authorization` value the bridge expects. The value is never
 * returned; views say only whether one is set.
 */
export interface WorkspaceBridge {
  url: string;
  /** The sealed Authorization header value (`SecretBox.seal`); absent: none is sent. */
  authorization?: string;
}

/** One source as a workspace uses it. */
export interface WorkspaceSourceSettings {
  /** Off: the workspace's calls of this source answer EXTENSION_NOT_ENABLED and the reconciler passes it over. */
  enabled: boolean;
  /**
   * The vendor's own identifier of the workspace, sent wherever the bridge protocol names the
   * workspace (paths, and the `workspaceId` of the incidents it answers); absent: the service's id.
   */
  vendorWorkspaceId?: string;
  /** The workspace's own bridge; absent: the deployment's system for the source. */
  bridge?: WorkspaceBridge;
}

export type WorkspaceSources = Partial<Record<Source, WorkspaceSourceSettings>>;

/** A source's settings for a workspace, with the defaults of one it does not name: on, the deployment's system, its own id. */
export function sourceSettingsOf(workspace: { sources?: WorkspaceSources }, source: Source): WorkspaceSourceSettings {
  return workspace.sources?.[source] ?? { enabled: true };
}

/** Every source's settings of a workspace, in the sources' order, the defaults filled in. */
export function allSourceSettings(workspace: { sources?: WorkspaceSources }): [Source, WorkspaceSourceSettings][] {
  return sources.map((source) => [source, sourceSettingsOf(workspace, source)]);
}
