import { hashString32, mix32, Rng } from "../../vendors/simulated/seeded-random";
import type { PlaybookStepRequest, PlaybookStepResult } from "../port";

/**
 * What the simulated automation backend makes of a step: a pure function of the demo seed and the
 * step. Whether an action fails depends on the world it acts on (an account synchronised from
 * on-premises, a domain controller, an offline device, a private address), derived from the seed and
 * the entity, so the same action on the same entity always ends the same way, as it would in a real
 * tenant. How long it took depends on the step too, so repeated runs do not look cloned.
 */
export function simulateStep(seed: string, request: PlaybookStepRequest): PlaybookStepResult {
  const behaviour = behaviours[request.playbook.referenceId] ?? genericBehaviour;
  const facts = factsAbout(seed, request);
  const failure = behaviour.fails(request, facts);
  const [minSeconds, maxSeconds] = behaviour.seconds;
  const timing = new Rng(mix32(hashString32(seed), hashString32(request.stepId), hashString32(request.playbook.referenceId)));
  // A failure usually surfaces early (the backend refuses before acting), so it is quicker.
  const span = failure === null ? maxSeconds - minSeconds : Math.max(1, Math.floor((maxSeconds - minSeconds) / 3));
  const durationMs = (minSeconds + timing.next() * span) * 1000;
  return failure === null
    ? { status: "Succeeded", errorMessage: null, output: behaviour.output(request, facts), durationMs: Math.round(durationMs) }
    : { status: "Failed", errorMessage: failure, output: {}, durationMs: Math.round(durationMs) };
}

/** Facts of the simulated tenant about the step's entity; each drawn from the seed and the entity alone. */
export interface EntityFacts {
  /** A directory account mastered in on-premises Active Directory (about a third of them). */
  onPremisesSynced: boolean;
  /** A device that has not reported for days (about one in ten). */
  offlineDays: number | null;
  /** A roll in [0, 100) for rarer, entity-specific failures. */
  roll: number;
  /** Per-entity draw for outputs (rule numbers, counts, package ids). */
  token: string;
}

export function factsAbout(seed: string, request: Pick<PlaybookStepRequest, "workspaceId" | "entity">): EntityFacts {
  const rng = new Rng(mix32(hashString32(seed), hashString32(request.workspaceId), hashString32(request.entity.name.toLowerCase())));
  const synced = rng.next() < 0.35;
  const offline = rng.next() < 0.1;
  const offlineDays = rng.between(3, 40);
  return { onPremisesSynced: synced, offlineDays: offline ? offlineDays : null, roll: rng.int(100), token: rng.hex(12) };
}

interface Behaviour {
  /** Shortest and longest run of the action, in seconds. */
  seconds: readonly [number, number];
  /** The failure message, or null when the action succeeds. */
  fails(request: PlaybookStepRequest, facts: EntityFacts): string | null;
  output(request: PlaybookStepRequest, facts: EntityFacts): PlaybookStepResult["output"];
}

/** Microsoft Graph's answer to a write of a property that on-premises Active Directory owns. */
const GRAPH_ON_PREMISES_MASTERED =
  "Unable to update the specified properties for on-premises mastered Directory Sync objects or objects currently undergoing migration.";

const syncedAccount = (what: string, where: string) => (request: PlaybookStepRequest, facts: EntityFacts) =>
  facts.onPremisesSynced
    ? `${what} ${request.entity.name} failed: the account is synchronised from on-premises Active Directory, so ${where}. Microsoft Graph: ${GRAPH_ON_PREMISES_MASTERED}`
    : null;

const offlineDevice = (what: string) => (request: PlaybookStepRequest, facts: EntityFacts) =>
  facts.offlineDays === null
    ? null
    : `${what} ${request.entity.name} failed: the device has not reported to the endpoint service for ${facts.offlineDays} days; the request cannot be delivered until it is back online.`;

const isPrivateAddress = (address: string) =>
  /^10\./.test(address) || /^192\.168\./.test(address) || /^172\.(1[6-9]|2\d|3[01])\./.test(address) || /^127\./.test(address);

const behaviours: Readonly<Record<string, Behaviour>> = {
  "disable-account": {
    seconds: [2, 8],
    fails: syncedAccount("Disabling", "accountEnabled must be changed in Active Directory and synchronised"),
    output: () => ({ accountEnabled: false }),
  },
  "enable-account": {
    seconds: [2, 8],
    fails: syncedAccount("Re-enabling", "accountEnabled must be changed in Active Directory and synchronised"),
    output: () => ({ accountEnabled: true }),
  },
  "revoke-sessions": {
    seconds: [2, 6],
    fails: () => null,
    output: () => ({ refreshTokensRevoked: true }),
  },
  "reset-password": {
    seconds: [3, 12],
    fails: syncedAccount("Resetting the password of", "its password is reset on-premises (password writeback is not enabled for this tenant)"),
    output: () => ({ forceChangePasswordNextSignIn: true, temporaryPasswordDelivered: "manager" }),
  },
  "notify-owner": {
    seconds: [1, 4],
    fails: (request, facts) =>
      facts.roll < 5
        ? `Notifying ${request.entity.name} failed: the message was not delivered (550 5.1.10 RESOLVER.ADR.RecipientNotFound; the recipient was not found by SMTP address lookup).`
        : null,
    output: (_request, facts) => ({ messageId: `<${facts.token}@notifications.secops.example>` }),
  },
  "isolate-host": {
    seconds: [15, 90],
    fails: (request, facts) =>
      /-DC-/i.test(request.entity.name)
        ? `Isolating ${request.entity.name} was refused: the device is a domain controller, and device group policy 'Tier 0 servers' forbids automated isolation. Isolate it by hand once the identity team agrees.`
        : offlineDevice("Isolating")(request, facts),
    output: (request) => ({ isolationType: String(request.parameters.isolationType ?? "Full"), isolated: true }),
  },
  "release-host": {
    seconds: [15, 60],
    fails: offlineDevice("Releasing"),
    output: () => ({ isolated: false }),
  },
  "collect-package": {
    seconds: [120, 600],
    fails: offlineDevice("Collecting the investigation package from"),
    output: (request, facts) => ({
      packageUrl: `https://evidence.secops.example/packages/${encodeURIComponent(request.entity.name)}-${facts.token}.zip`,
      sizeBytes: 40_000_000 + facts.roll * 1_250_000,
    }),
  },
  "quarantine-file": {
    seconds: [10, 45],
    fails: (request, facts) =>
      facts.roll < 8 ? `Quarantining ${request.entity.name} found nothing to do: no managed device holds a file with this hash any more.` : null,
    output: (_request, facts) => ({ devicesQuarantined: 1 + (facts.roll % 6) }),
  },
  "block-ip": {
    seconds: [5, 20],
    fails: (request) =>
      isPrivateAddress(request.entity.name)
        ? `Blocking ${request.entity.name} was refused: it is a private address, and the perimeter firewall blocks public addresses only. Contain the internal host instead.`
        : null,
    output: (request) => ({ firewall: "perimeter", ruleName: `SOC-Block-${request.entity.name}` }),
  },
  "unblock-ip": {
    seconds: [5, 20],
    fails: () => null,
    output: (request) => ({ firewall: "perimeter", ruleRemoved: `SOC-Block-${request.entity.name}` }),
  },
  "block-domain": {
    seconds: [4, 15],
    fails: (request, facts) =>
      facts.roll < 5
        ? `Blocking ${request.entity.name} was refused by the DNS filtering service: the domain is on the organisation's allow list, which only a change request can alter.`
        : null,
    output: (request) => ({ dnsPolicy: "SOC blocked domains", domain: request.entity.name }),
  },
  "unblock-domain": {
    seconds: [4, 15],
    fails: () => null,
    output: (request) => ({ dnsPolicy: "SOC blocked domains", domainRemoved: request.entity.name }),
  },
  "block-url": {
    seconds: [4, 15],
    fails: () => null,
    output: () => ({ proxyCategory: "SOC blocked URLs" }),
  },
  "purge-email": {
    seconds: [20, 120],
    fails: () => null,
    output: (_request, facts) => ({ messagesRemoved: 1 + (facts.roll % 40) }),
  },
  "remove-inbox-rule": {
    seconds: [5, 25],
    fails: (request, facts) =>
      facts.roll < 10 ? `No inbox rule forwarding to an external address was found in ${request.entity.name}; it may already have been removed.` : null,
    output: () => ({ rulesRemoved: 1 }),
  },
};

/** An action the simulated backend has no particular knowledge of: it usually works. */
const genericBehaviour: Behaviour = {
  seconds: [3, 30],
  fails: (request, facts) =>
    facts.roll < 5 ? `The automation for '${request.playbook.name}' reported an internal error (correlation id ${facts.token}); retry the gamebook or run the action by hand.` : null,
  output: () => ({}),
};
