import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { disabledDocumentStore, type DocumentStore } from "../../shared/systems/documents/port";
import { startTestHost, type TestHost, type TestPerson } from "../support/test-host";
import { json, type Json } from "../support/json";

/** Small, so that the size limit is cheap to reach. */
const MAX_BYTES = 4096;
const FORM_OVERHEAD_BYTES = 64 * 1024;

let host: TestHost;
let ws: string;
let agentAdmin: TestPerson;
let reader: TestPerson;
let outsider: TestPerson;

beforeAll(async () => {
  host = await startTestHost({ env: { SOP_MAX_BYTES: String(MAX_BYTES) } });
  ws = host.demo.workspaces.find((w) => w.name === "fabrikam-sentinel-prod")!.id;
  agentAdmin = await host.person({ organizationalRole: "AgentAdmin", workspaceAssignments: [{ workspaceId: ws, role: "Analyst" }] });
  reader = await host.person({ organizationalRole: "Member", workspaceAssignments: [{ workspaceId: ws, role: "Analyst" }] });
  outsider = await host.person({ organizationalRole: "Member" });
});
afterAll(async () => host?.close());

const sopsUrl = (workspaceId = ws) => `${host.base}/portal/workspaces/${workspaceId}/sops`;

/** A real multipart upload, built by fetch from FormData, as a browser sends it. */
async function upload(person: TestPerson, file: { bytes: Buffer | string; name: string; type?: string } | null, fields: Record<string, string> = {}): Promise<Response> {
  const form = new FormData();
  if (file) form.append("file", new Blob([typeof file.bytes === "string" ? file.bytes : new Uint8Array(file.bytes)], file.type === undefined ? {} : { type: file.type }), file.name);
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return host.fetch(sopsUrl(), { method: "POST", headers: person.headers, body: form });
}

const get = (person: TestPerson, url: string) => host.fetch(url, { headers: person.headers });

async function audited(activityType: string): Promise<Json[]> {
  await host.auditSequenced(ws);
  const body = await json(await host.call("GET", `/workspaces/${ws}/export/audit?pageSize=1000`));
  return body.value.filter((e: Json) => e.activityType === activityType);
}

const markdown = "# Ransomware first response\n\n1. Isolate the host.\n2. Preserve memory.\n";
const pdf = Buffer.concat([Buffer.from("%PDF-1.7\n%\u00e2\u00e3\u00cf\u00d3\n1 0 obj << /Type /Catalog >> endobj\n", "latin1"), Buffer.from([0x00, 0xff, 0x10]), Buffer.from("\n%%EOF\n")]);
/** The start of an ECMA-376 package: a ZIP whose part names a Word document has. */
const docx = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x06, 0x00]), Buffer.from("[Content_Types].xml"), Buffer.alloc(32), Buffer.from("word/document.xml"), Buffer.from([0x00, 0x01, 0x02])]);
const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d]);
const zip = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.from("xl/workbook.xml[Content_Types].xml")]);

describe("uploading SOP documents", () => {
  it("stores a Markdown upload with its title and description, answers 201 with its SHA-256, and audits it with the person as actor", async () => {
    const res = await upload(agentAdmin, { bytes: markdown, name: "ransomware.md", type: "text/markdown" }, { title: "Ransomware first response", description: "The first hour." });
    expect(res.status).toBe(201);
    const { data } = await json(res);
    expect(data).toMatchObject({
      workspaceId: ws,
      title: "Ransomware first response",
      description: "The first hour.",
      fileName: "ransomware.md",
      contentType: "text/markdown; charset=utf-8",
      sizeBytes: Buffer.byteLength(markdown),
      sha256: createHash("sha256").update(markdown).digest("hex"),
      uploadedBy: { userId: agentAdmin.userId, name: agentAdmin.name },
    });
    expect(res.headers.get("location")).toBe(`${sopsUrl()}/${data.id}`);
    const [event] = (await audited("SopDocument")).filter((e) => e.targetResourceId === data.id);
    expect(event).toMatchObject({ activityAction: "Create", actorId: agentAdmin.userId, targetResourceName: "Ransomware first response" });
    expect(JSON.parse(event!.metadata)).toMatchObject({ fileName: "ransomware.md", sha256: data.sha256 });
  });

  it("recognises PDF, Word and plain text from their bytes, whatever generic type the browser declared", async () => {
    const cases: [Buffer | string, string, string | undefined, string][] = [
      [pdf, "incident-handling.pdf", "application/pdf", "application/pdf"],
      [pdf, "incident-handling", "application/octet-stream", "application/pdf"],
      [docx, "escalation.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"],
      ["Call the duty manager first.\r\n", "on-call.txt", undefined, "text/plain; charset=utf-8"],
      ["## Markdown by its name\n", "notes.markdown", "application/octet-stream", "text/markdown; charset=utf-8"],
    ];
    for (const [bytes, name, type, stored] of cases) {
      const res = await upload(agentAdmin, { bytes, name, type });
      const body = await json(res);
      expect({ name, status: res.status, contentType: body.data?.contentType }).toEqual({ name, status: 201, contentType: stored });
    }
    const titled = (await json(await upload(agentAdmin, { bytes: pdf, name: "C:\\fakepath\\Major incident.pdf", type: "application/pdf" }))).data;
    expect(titled).toMatchObject({ fileName: "Major incident.pdf", title: "Major incident" });
  });

  it("refuses content that is not an accepted document, or that contradicts its declared type or name, with 415", async () => {
    const cases: [Buffer | string, string, string | undefined, RegExp][] = [
      [png, "diagram.png", "image/png", /not a document/],
      [png, "diagram", "application/octet-stream", /not a document/],
      [zip, "runbooks.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", /not a document/],
      ["<html><script>alert(1)</script></html>", "page.html", "text/html", /text\/html is not a type/],
      ["plain words", "report.pdf", "application/pdf", /declared application\/pdf, but its content is text/],
      [pdf, "notes.txt", "text/plain", /declared text\/plain, but its content is a PDF/],
      [pdf, "notes.md", "application/octet-stream", /named \.md, but its content is a PDF/],
      [Buffer.from([0x41, 0x00, 0x42]), "binary.txt", "text/plain", /not a document/],
      [Buffer.from([0xc3, 0x28]), "latin.txt", "text/plain", /not a document/],
    ];
    for (const [bytes, name, type, why] of cases) {
      const res = await upload(agentAdmin, { bytes, name, type });
      const problem = await json(res);
      expect({ name, status: res.status, code: problem.code, target: problem.target }).toEqual({ name, status: 415, code: "UNSUPPORTED_MEDIA_TYPE", target: "file" });
      expect(problem.detail).toMatch(why);
    }
  });

  it("refuses a file over the deployment's limit with 413 saying both sizes, a body far over it before reading it, and an empty file with 400", async () => {
    const big = await upload(agentAdmin, { bytes: "x".repeat(MAX_BYTES + 1), name: "big.txt", type: "text/plain" });
    expect(big.status).toBe(413);
    const problem = await json(big);
    expect(problem).toMatchObject({ code: "BAD_REQUEST", status: 413, target: "file" });
    expect(problem.detail).toContain(String(MAX_BYTES + 1));
    expect(problem.detail).toContain(String(MAX_BYTES));
    expect((await upload(agentAdmin, { bytes: "x".repeat(MAX_BYTES), name: "just-fits.txt", type: "text/plain" })).status).toBe(201);

    const huge = await upload(agentAdmin, { bytes: "x".repeat(MAX_BYTES + FORM_OVERHEAD_BYTES + 1), name: "huge.txt", type: "text/plain" });
    expect(huge.status).toBe(413);
    expect((await json(huge)).code).toBe("BAD_REQUEST");

    const empty = await upload(agentAdmin, { bytes: "", name: "empty.txt", type: "text/plain" });
    expect(empty.status).toBe(400);
    expect((await json(empty)).errors).toEqual({ file: ["The file is empty."] });
  });

  it("needs one file part, the documented fields only, and a multipart body", async () => {
    const noFile = await upload(agentAdmin, null, { title: "Nothing attached" });
    expect(noFile.status).toBe(400);
    expect(Object.keys((await json(noFile)).errors)).toEqual(["file"]);
    const form = new FormData();
    form.append("file", "not a file part");
    const asText = await host.fetch(sopsUrl(), { method: "POST", headers: agentAdmin.headers, body: form });
    expect((await json(asText)).errors.file).toEqual(["Send the document as one file part named file (with a file name)."]);
    const extra = await upload(agentAdmin, { bytes: markdown, name: "x.md" }, { owner: "me" });
    expect(extra.status).toBe(400);
    expect(Object.keys((await json(extra)).errors)).toEqual(["owner"]);
    const asJson = await host.portal(agentAdmin, "POST", `/portal/workspaces/${ws}/sops`, { body: { file: markdown } });
    expect(asJson.status).toBe(415);
    expect((await json(asJson)).code).toBe("UNSUPPORTED_MEDIA_TYPE");
  });

  // That the service goes on answering other requests while such bodies arrive is a timing, measured by
  // the bench (BENCH_ONLY=multipart: 10 MiB of empty parts, /health every 5 ms), not here.
  it("refuses a body of many parts before parsing any, naming no field", async () => {
    // As many empty parts as the route's body limit holds (the file's limit plus room for the form).
    const empty = '--b\r\nContent-Disposition: form-data; name="x"\r\n\r\n\r\n';
    const flood = empty.repeat(Math.floor((MAX_BYTES + 2048) / empty.length)) + "--b--\r\n";
    const res = await host.fetch(sopsUrl(), { method: "POST", headers: { ...agentAdmin.headers, "content-type": "multipart/form-data; boundary=b" }, body: flood });
    const problem = await json(res);
    expect([res.status, problem.code]).toEqual([400, "BAD_REQUEST"]);
    expect(problem.detail).toContain("at most 8 parts");
    expect(problem.errors).toBeUndefined();
    // A few unknown fields are named, and no more than the parts a body may hold.
    const form = new FormData();
    form.append("file", new Blob([markdown]), "x.md");
    for (const name of ["a", "b", "c", "d", "e", "f", "g"]) form.append(name, "1");
    const extra = await json(await host.fetch(sopsUrl(), { method: "POST", headers: agentAdmin.headers, body: form }));
    expect(Object.keys(extra.errors)).toEqual(["a", "b", "c", "d", "e", "f", "g"]);
  });

  it("is for AgentAdmin: any role on the workspace reads, no role is refused", async () => {
    const refused = await upload(reader, { bytes: markdown, name: "x.md" });
    expect(refused.status).toBe(403);
    expect((await json(refused)).target).toBe("organizationalRole");
    expect((await get(reader, sopsUrl())).status).toBe(200);
    expect((await json(await get(outsider, sopsUrl()))).code).toBe("INSUFFICIENT_WORKSPACE_ROLE");
  });
});

describe("reading and deleting SOP documents", () => {
  it("lists newest first, shows one, and serves its bytes back exactly, as an attachment under its name, never sniffed", async () => {
    const name = "Réponse à l'incident (v2).md";
    const bytes = Buffer.from("# Réponse\n\nÉtape 1 : isoler l'hôte.\n", "utf8");
    const created = (await json(await upload(agentAdmin, { bytes, name, type: "text/markdown" }))).data;
    const list = (await json(await get(reader, sopsUrl()))).data;
    expect(list[0].id).toBe(created.id);
    expect(list.map((s: Json) => s.uploadedAt)).toEqual([...list.map((s: Json) => s.uploadedAt)].sort().reverse());
    expect((await json(await get(reader, `${sopsUrl()}/${created.id}`))).data).toEqual(created);

    const download = await get(reader, `${sopsUrl()}/${created.id}/content`);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    expect(download.headers.get("x-content-type-options")).toBe("nosniff");
    expect(download.headers.get("content-disposition")).toBe(`attachment; filename="R_ponse _ l'incident (v2).md"; filename*=UTF-8''R%C3%A9ponse%20%C3%A0%20l%27incident%20%28v2%29.md`);
    expect(download.headers.get("content-security-policy")).toContain("sandbox");
    expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);

    const binary = (await json(await upload(agentAdmin, { bytes: pdf, name: "binary.pdf", type: "application/pdf" }))).data;
    const pdfDownload = await get(reader, `${sopsUrl()}/${binary.id}/content`);
    expect(pdfDownload.headers.get("content-type")).toBe("application/pdf");
    expect(Buffer.from(await pdfDownload.arrayBuffer()).equals(pdf)).toBe(true);
  });

  it("deletes the record and the bytes (204, audited); then the document is 404 everywhere", async () => {
    const created = (await json(await upload(agentAdmin, { bytes: markdown, name: "to-delete.md" }))).data;
    expect((await host.fetch(`${sopsUrl()}/${created.id}`, { method: "DELETE", headers: reader.headers })).status).toBe(403);
    expect((await host.fetch(`${sopsUrl()}/${created.id}`, { method: "DELETE", headers: agentAdmin.headers })).status).toBe(204);
    expect((await json(await get(reader, sopsUrl()))).data.map((s: Json) => s.id)).not.toContain(created.id);
    for (const url of [`${sopsUrl()}/${created.id}`, `${sopsUrl()}/${created.id}/content`]) {
      const res = await get(reader, url);
      expect({ url, status: res.status, code: (await json(res)).code }).toEqual({ url, status: 404, code: "NOT_FOUND" });
    }
    expect(await host.services.documents.get(ws, created.id)).toBeNull();
    expect((await host.fetch(`${sopsUrl()}/${created.id}`, { method: "DELETE", headers: agentAdmin.headers })).status).toBe(404);
    expect((await audited("SopDocument")).filter((e) => e.targetResourceId === created.id).map((e) => e.activityAction)).toEqual(["Create", "Delete"]);
  });

  it("does not serve bytes that are not those uploaded (502), and answers EXTENSION_NOT_ENABLED without a document store", async () => {
    const created = (await json(await upload(agentAdmin, { bytes: markdown, name: "tampered.md" }))).data;
    const real = host.services.documents;
    const tampered: DocumentStore = { ...real, get: async (w, id, signal) => ((found) => found && { ...found, bytes: Buffer.from("# Something else\n") })(await real.get(w, id, signal)) };
    host.services.documents = tampered;
    try {
      const res = await get(reader, `${sopsUrl()}/${created.id}/content`);
      expect(res.status).toBe(502);
      expect((await json(res)).code).toBe("UPSTREAM_ERROR");
      host.services.documents = disabledDocumentStore();
      const refused = await upload(agentAdmin, { bytes: markdown, name: "x.md" });
      expect(refused.status).toBe(400);
      expect((await json(refused)).code).toBe("EXTENSION_NOT_ENABLED");
      expect((await json(await get(reader, `${sopsUrl()}/${created.id}/content`))).code).toBe("EXTENSION_NOT_ENABLED");
    } finally {
      host.services.documents = real;
    }
  });
});
