import { csrf, type Problem } from "./client";
import type { paths } from "./openapi";

export type SopList = paths["/api/v2/portal/workspaces/{workspaceId}/sops"]["get"]["responses"][200]["content"]["application/json"]["data"];
export type Sop = SopList[number];

export interface Progress {
  loaded: number;
  total: number;
}

/** The problem of an upload's answer: the server's problem JSON, or one that says what happened. */
export function problemOf(xhr: XMLHttpRequest): Problem {
  try {
    const body = JSON.parse(xhr.responseText) as Partial<Problem>;
    if (body && typeof body.code === "string") return { ...body, status: xhr.status, code: body.code };
  } catch {
    // Not JSON: described below.
  }
  return { status: xhr.status, code: "UNEXPECTED_RESPONSE", detail: `The service answered ${xhr.status}.` };
}
/**
 * Uploads with `XMLHttpRequest`, whose `upload.onprogress` reports how much has been sent (fetch
 * cannot); the same headers as the typed client's changes: the CSRF token, and JSON answers.
 */
export function upload(workspaceId: string, form: FormData, onProgress: (p: Progress) => void, xhrRef: { current: XMLHttpRequest | null }): Promise<Sop> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhrRef.current = xhr;
    xhr.open("POST", `/api/v2/portal/workspaces/${encodeURIComponent(workspaceId)}/sops`);
    xhr.withCredentials = true;
    xhr.setRequestHeader("Accept", "application/json");
    xhr.setRequestHeader("X-CSRF-Token", csrf()["X-CSRF-Token"]);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress({ loaded: e.loaded, total: e.total });
    };
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        try {
          resolve((JSON.parse(xhr.responseText) as { data: Sop }).data);
        } catch {
          reject(problemOf(xhr));
        }
      } else reject(problemOf(xhr));
    };
    xhr.onerror = () =>
      reject({
        status: 0,
        code: "NETWORK_ERROR",
        detail: "The connection closed before the service answered. If the file is large, it may be over the deployment's limit for SOP documents (10 MiB unless configured otherwise).",
      } satisfies Problem);
    xhr.onabort = () => reject({ status: 0, code: "UPLOAD_ABORTED", detail: "Nothing was stored." } satisfies Problem);
    xhr.send(form);
  });
}
