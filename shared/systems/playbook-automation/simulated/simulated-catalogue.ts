import type { AutomationPlaybook } from "../port";

const action = (
  referenceId: string,
  entityType: AutomationPlaybook["entityType"],
  name: string,
  description: string,
  options: { admin?: boolean; parameters?: AutomationPlaybook["parameters"] } = {},
): AutomationPlaybook => ({ referenceId, name, description, entityType, isAdminRequired: options.admin ?? false, parameters: options.parameters ?? [] });

/**
 * The actions the simulated automation backend offers every workspace: those the demo catalogues
 * hold, as the backend names and describes them, and one the demo catalogues do not have yet, so
 * that importing into a demo workspace has something to add.
 */
export const simulatedAutomationCatalogue: readonly AutomationPlaybook[] = [
  action("disable-account", "User", "Disable user account", "Blocks sign-in for the account in the directory until it is reviewed.", { admin: true }),
  action("enable-account", "User", "Re-enable user account", "Allows sign-in for an account that a gamebook disabled.", { admin: true }),
  action("revoke-sessions", "User", "Revoke user sessions", "Signs the user out of every session and revokes their refresh tokens."),
  action("reset-password", "User", "Reset user password", "Sets a temporary password and forces a change at the next sign-in.", { admin: true }),
  action("notify-owner", "User", "Notify the user", "E-mails the user and their manager what happened and what to do next.", {
    parameters: [{ name: "note", kind: "string", description: "An extra paragraph for the message.", required: false, maxLength: 2000 }],
  }),
  action("require-mfa-registration", "User", "Require MFA re-registration", "Removes the user's registered sign-in methods, so that they register MFA again at their next sign-in.", {
    admin: true,
  }),
  action("isolate-host", "Host", "Isolate host", "Cuts the device off the network except for the endpoint service's channel.", {
    admin: true,
    parameters: [
      { name: "isolationType", kind: "enum", description: "Full, or Selective (keeps Outlook, Teams and Skype working).", required: false, values: ["Full", "Selective"], default: "Full" },
    ],
  }),
  action("release-host", "Host", "Release host from isolation", "Reconnects a device that a gamebook isolated.", { admin: true }),
  action("collect-package", "Host", "Collect investigation package", "Collects logs, autoruns, running processes and memory artefacts from the device."),
  action("quarantine-file", "File", "Quarantine file", "Stops the file's processes and quarantines it by hash on every managed device."),
  action("block-ip", "Ip", "Block IP address", "Adds the address to the perimeter firewall's deny list.", {
    parameters: [{ name: "expiresInHours", kind: "integer", description: "Lift the block after this many hours; permanent when absent.", required: false, min: 1, max: 8760 }],
  }),
  action("unblock-ip", "Ip", "Unblock IP address", "Removes an address that a gamebook blocked from the deny list."),
  action("block-domain", "Domain", "Block domain", "Adds the domain to the DNS filtering block list."),
  action("unblock-domain", "Domain", "Unblock domain", "Removes a domain that a gamebook blocked from the DNS block list."),
  action("block-url", "Url", "Block URL", "Adds the URL to the web proxy's block list."),
  action("purge-email", "Mailbox", "Purge phishing email", "Removes the message, and copies of it, from every mailbox that received it."),
  action("remove-inbox-rule", "Mailbox", "Remove inbox forwarding rule", "Deletes inbox rules that forward mail to external addresses."),
];
