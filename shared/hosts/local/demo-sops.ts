import { createHash } from "node:crypto";
import type { Uses } from "../../domain/operation-context";
import type { SopRecord } from "../../model/sops/sop";
import { demoId, type DemoData } from "./demo-data";

/** A short runbook, as a SOC would write one. */
const PHISHING_TRIAGE = `# Phishing triage

1. Pull the reported message's headers: sender, return path, the authentication results (SPF, DKIM, DMARC).
2. Detonate links and attachments in the sandbox; never open them on a workstation.
3. Search the mail estate for the same sender, subject and URLs; note every recipient.
4. If anyone clicked or entered credentials: revoke their sessions and reset their password.
5. Purge the message from every mailbox and block the sending domain.
6. Close the incident with its classification and what was done.
`;

/**
 * The demo's SOP documents: one runbook in \`fabrikam-sentinel-prod\`, which the reference page's
 * read, download and delete examples name. Written only when missing, so that a restart brings back
 * what an example deleted; the record is the service's, the bytes the document store's.
 */
export async function seedDemoSops(services: Uses<"config" | "documents" | "now" | "stores">, demo: Pick<DemoData, "workspaces">): Promise<void> {
  const workspace = demo.workspaces.find((w) => w.name === "fabrikam-sentinel-prod");
  if (!workspace || !services.documents.enabled) return;
  const id = demoId(services.config.demoSeed, `sop/${workspace.name}/phishing-triage`);
  if (await services.stores.sops.get(workspace.id, id)) return;
  const bytes = Buffer.from(PHISHING_TRIAGE, "utf8");
  const record: SopRecord = {
    id,
    docType: "sop",
    workspaceId: workspace.id,
    title: "Phishing triage",
    description: "First steps for a reported phishing email.",
    fileName: "phishing-triage.md",
    contentType: "text/markdown; charset=utf-8",
    sizeBytes: bytes.length,
    sha256: createHash("sha256").update(bytes).digest("hex"),
    uploadedAt: services.now().toISOString(),
    uploadedBy: { userId: null, name: "Demo seed" },
  };
  await services.documents.put({ ...record, documentId: id, bytes, uploadedBy: "demo-seed" });
  await services.stores.sops.create(record);
}
