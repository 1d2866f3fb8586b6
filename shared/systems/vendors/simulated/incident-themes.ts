import type { Classification, EntityKind } from "../../../model/incidents/incident";

/**
 * The kinds of incident the simulated vendors raise. Each theme decides which entities an incident
 * involves (the first one names it), what its alerts are called and which playbooks fit, so that the
 * generated incidents read like real ones rather than random words.
 */
export interface IncidentTheme {
  /** `{subject}` is replaced by the name of the incident's first entity. */
  title: string;
  description: string;
  /** Entity kinds involved, the subject first; repeated kinds mean several of that kind. */
  entityKinds: readonly EntityKind[];
  alertTitles: readonly string[];
  tactics: readonly string[];
  playbooks: readonly string[];
}

export const incidentThemes: readonly IncidentTheme[] = [
  {
    title: "Phishing email with a malicious link delivered to {subject}",
    description: "A message containing a credential-harvesting link reached the mailbox; at least one recipient opened it.",
    entityKinds: ["Mailbox", "Url", "Account", "Ip"],
    alertTitles: ["Email messages containing malicious URL removed after delivery", "User clicked a potentially malicious URL", "Suspicious email sending pattern detected"],
    tactics: ["InitialAccess"],
    playbooks: ["purge-email", "block-url", "reset-password"],
  },
  {
    title: "Impossible travel activity for {subject}",
    description: "Sign-ins from two locations too far apart to travel between in the time that separates them.",
    entityKinds: ["Account", "Ip", "Ip"],
    alertTitles: ["Impossible travel activity", "Sign-in from an anonymous IP address", "Atypical travel"],
    tactics: ["InitialAccess", "CredentialAccess"],
    playbooks: ["revoke-sessions", "reset-password", "block-ip"],
  },
  {
    title: "Malware detected on {subject}",
    description: "The endpoint agent detected a malicious file and observed it executing.",
    entityKinds: ["Host", "File", "Process", "Account"],
    alertTitles: ["Malicious file detected", "Suspicious process injection observed", "Ransomware behavior detected in the file system"],
    tactics: ["Execution", "DefenseEvasion"],
    playbooks: ["isolate-host", "quarantine-file", "collect-package"],
  },
  {
    title: "Suspicious PowerShell command line on {subject}",
    description: "An obfuscated PowerShell command downloaded and ran a script from the internet.",
    entityKinds: ["Host", "Process", "Account", "Url"],
    alertTitles: ["Suspicious PowerShell command line", "Encoded PowerShell command executed", "PowerShell download cradle detected"],
    tactics: ["Execution"],
    playbooks: ["isolate-host", "collect-package", "block-url"],
  },
  {
    title: "Brute force attack against {subject}",
    description: "Many failed sign-ins for one account from a small set of addresses, followed by a success.",
    entityKinds: ["Account", "Ip", "Host"],
    alertTitles: ["Multiple failed sign-in attempts", "Password spray detected", "Successful sign-in after brute force"],
    tactics: ["CredentialAccess"],
    playbooks: ["block-ip", "reset-password", "revoke-sessions"],
  },
  {
    title: "Possible data exfiltration by {subject}",
    description: "An unusual volume of data left the organization for a personal cloud storage service.",
    entityKinds: ["Account", "Host", "Ip", "Url", "File"],
    alertTitles: ["Unusual volume of data uploaded to a cloud storage service", "Mass download by a single user", "Sensitive file shared externally"],
    tactics: ["Exfiltration", "Collection"],
    playbooks: ["revoke-sessions", "block-url", "isolate-host"],
  },
  {
    title: "Multiple MFA requests denied by {subject}",
    description: "The user denied a burst of multi-factor prompts they did not start (MFA fatigue).",
    entityKinds: ["Account", "Ip"],
    alertTitles: ["MFA fatigue attack suspected", "Unfamiliar sign-in properties"],
    tactics: ["CredentialAccess"],
    playbooks: ["reset-password", "revoke-sessions", "block-ip"],
  },
  {
    title: "Suspicious inbox forwarding rule created in {subject}",
    description: "A new rule forwards all incoming mail to an external address.",
    entityKinds: ["Mailbox", "Account", "Ip"],
    alertTitles: ["Suspicious inbox forwarding rule", "Inbox manipulation rule created after risky sign-in"],
    tactics: ["Persistence", "Collection"],
    playbooks: ["remove-inbox-rule", "revoke-sessions"],
  },
  {
    title: "Lateral movement over RDP from {subject}",
    description: "A host opened remote desktop sessions to several servers it has never connected to before.",
    entityKinds: ["Host", "Host", "Account", "Ip"],
    alertTitles: ["Suspicious RDP session", "Unusual remote logon pattern", "Pass-the-hash activity suspected"],
    tactics: ["LateralMovement"],
    playbooks: ["isolate-host", "disable-account"],
  },
  {
    title: "Credential dumping attempt on {subject}",
    description: "A process opened the LSASS memory with access rights typical of credential theft tools.",
    entityKinds: ["Host", "Process", "Account", "File"],
    alertTitles: ["Suspicious access to LSASS service", "Credential theft tool detected"],
    tactics: ["CredentialAccess"],
    playbooks: ["isolate-host", "reset-password", "collect-package"],
  },
  {
    title: "Cryptocurrency mining activity on {subject}",
    description: "Sustained high CPU use by a process that talks to a known mining pool.",
    entityKinds: ["Host", "Process", "Ip", "Url"],
    alertTitles: ["Cryptocurrency mining behavior detected", "Connection to a mining pool"],
    tactics: ["Impact"],
    playbooks: ["isolate-host", "block-ip"],
  },
  {
    title: "Communication with a command-and-control server from {subject}",
    description: "Periodic beaconing to an address listed by threat intelligence as command-and-control.",
    entityKinds: ["Host", "Ip", "Url", "Process"],
    alertTitles: ["Connection to a known C2 server", "Beaconing traffic detected", "DNS request to a suspicious domain"],
    tactics: ["CommandAndControl"],
    playbooks: ["block-ip", "isolate-host", "block-url"],
  },
  {
    title: "{subject} added to a privileged group",
    description: "An account was added to a highly privileged directory group outside the change process.",
    entityKinds: ["Account", "Account", "Host"],
    alertTitles: ["User added to a privileged group", "Suspicious role assignment"],
    tactics: ["PrivilegeEscalation", "Persistence"],
    playbooks: ["disable-account", "revoke-sessions"],
  },
  {
    title: "Suspicious OAuth application consent by {subject}",
    description: "The user granted a newly registered application broad access to mail and files.",
    entityKinds: ["Account", "Url", "Ip"],
    alertTitles: ["Suspicious application consent", "Risky OAuth app permissions granted"],
    tactics: ["Persistence", "CredentialAccess"],
    playbooks: ["revoke-sessions", "disable-account"],
  },
];

/** The playbooks the vendors recommend, by id; `entityType` is the contract's playbook entity type. */
export const playbookCatalog: Readonly<Record<string, { name: string; description: string; entityType: string }>> = {
  "purge-email": { name: "Purge phishing email", description: "Removes the message from every mailbox that received it.", entityType: "Mailbox" },
  "block-url": { name: "Block URL", description: "Adds the URL to the web proxy block list.", entityType: "Url" },
  "reset-password": { name: "Reset user password", description: "Forces a password reset at the next sign-in.", entityType: "User" },
  "revoke-sessions": { name: "Revoke user sessions", description: "Signs the user out of every session and revokes refresh tokens.", entityType: "User" },
  "block-ip": { name: "Block IP address", description: "Adds the address to the perimeter firewall deny list.", entityType: "Ip" },
  "isolate-host": { name: "Isolate host", description: "Cuts the host off the network except for the management channel.", entityType: "Host" },
  "quarantine-file": { name: "Quarantine file", description: "Quarantines the file by hash on every managed endpoint.", entityType: "File" },
  "collect-package": { name: "Collect investigation package", description: "Collects logs, autoruns and memory artefacts from the host.", entityType: "Host" },
  "remove-inbox-rule": { name: "Remove inbox rule", description: "Deletes the forwarding rule and notifies the mailbox owner.", entityType: "Mailbox" },
  "disable-account": { name: "Disable account", description: "Disables the account in the directory until reviewed.", entityType: "User" },
};

/** What analysts write when closing, per classification. */
export const closingComments: Readonly<Record<Classification, readonly string[]>> = {
  TruePositive: [
    "Confirmed malicious. Host isolated, credentials reset, IOCs blocked.",
    "True positive: attacker activity confirmed and contained.",
    "Confirmed compromise; remediation completed per runbook.",
  ],
  BenignPositive: [
    "Authorised penetration test, ticket attached.",
    "Expected admin activity; change request verified with the owner.",
    "User travelling; sign-ins confirmed with the user by phone.",
  ],
  FalsePositive: [
    "Detection logic misfired on a legitimate backup job.",
    "False positive: the file is a signed vendor installer.",
    "Known scanner address; added to the allow list.",
  ],
  Undetermined: [
    "Insufficient telemetry to conclude; monitoring continues.",
    "Closed after 14 days without further activity.",
  ],
};

export const analystNotes: readonly string[] = [
  "Reviewed the sign-in logs; waiting for the user to confirm.",
  "Escalated to tier 2 for host forensics.",
  "Blocked the indicators at the proxy as a precaution.",
  "Contacted the asset owner, no response yet.",
  "Correlates with last week's phishing campaign.",
];

export const agentNotes: readonly string[] = [
  "Triage summary: 3 of 4 indicators match threat intelligence; recommend containment.",
  "Enrichment complete: the address has a poor reputation and belongs to a hosting provider.",
  "No similar activity in the last 30 days for this entity.",
];

export const agentNames: readonly string[] = ["Triage Agent", "Enrichment Agent", "Investigation Agent"];

/** Product names per source index (SourceA..SourceG), as the alerts' `productName`. */
export const productNames: readonly (readonly string[])[] = [
  ["Cloud SIEM Analytics", "Identity Protection", "Endpoint Detection"],
  ["XDR Endpoint", "XDR Email", "XDR Identity"],
  ["Security Analytics Rules", "Machine Learning Jobs"],
  ["Security Incident Response"],
  ["Network Detection", "Cloud Workload Protection"],
  ["Case Management"],
  ["Threat Detection Engine", "Curated Detections"],
];
