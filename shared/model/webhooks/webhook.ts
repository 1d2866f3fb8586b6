export const webhookStatuses = ["Active", "Paused", "Disabled"] as const;

export type WebhookStatus = (typeof webhookStatuses)[number];

export const webhookAuthenticationTypes = ["None", "Bearer", "Basic", "ApiKey"] as const;

export type WebhookAuthenticationType = (typeof webhookAuthenticationTypes)[number];

/** The header an `ApiKey` endpoint credential travels in. */
export const API_KEY_HEADER = "X-Api-Key";

/** A signing key, sealed at rest. The newest is first; a rotated-out key is kept until `retiresAt`. */
export interface SealedSigningKey {
  sealed: string;
  createdAt: string;
  retiresAt: string | null;
}

/** docs/contract.md §2.8, plus what delivery needs (sealed secrets, the rolling failure record). */
export interface WebhookRecord {
  id: string;
  /** The owning account: its events (and, for a provider, its managed accounts') are delivered. */
  targetAccountId: string;
  targetAccountName: string;
  serviceProviderId: string;
  workspaceId: string | null;
  name: string;
  url: string;
  status: WebhookStatus;
  eventTypes: string[];
  monitoredAccountIds: string[];
  authenticationType: WebhookAuthenticationType;
  /** The endpoint credential (`token`), sealed; null with authenticationType None. */
  sealedToken: string | null;
  signingKeys: SealedSigningKey[];
  disableReason: string | null;
  disabledAt: string | null;
  /** Final delivery failures of the last 24 hours, per incident, for auto-disable (docs/contract.md §6.6.5). */
  finalFailures: { incidentKey: string; at: string }[];
  createdAt: string;
  lastModifiedAt: string;
}
