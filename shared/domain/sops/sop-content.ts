/**
 * What an SOP document is, judged from its bytes rather than from what the uploader's browser
 * declared: a declared type is a guess from the file name, and a document served back to analysts
 * must be what it says (a "PDF" that is an HTML page would run in the portal's origin if a browser
 * sniffed it). Accepted: PDF, Word (DOCX), Markdown and plain text (UTF-8).
 */
export const sopKinds = ["Pdf", "Docx", "Markdown", "Text"] as const;
export type SopKind = (typeof sopKinds)[number];

/** The media type each kind is stored and served with. */
export const SOP_MEDIA_TYPES: Readonly<Record<SopKind, string>> = {
  Pdf: "application/pdf",
  Docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  Markdown: "text/markdown",
  Text: "text/plain",
};

export const ACCEPTED_SOP_TYPES = "PDF, Word (.docx), Markdown or plain text (UTF-8)";

const EXTENSIONS: Readonly<Record<string, SopKind>> = { pdf: "Pdf", docx: "Docx", md: "Markdown", markdown: "Markdown", txt: "Text", text: "Text" };
/** Declared types a browser or client sends for each kind; anything else but a generic type is refused. */
const DECLARED: Readonly<Record<string, SopKind | "Generic">> = {
  "application/pdf": "Pdf",
  "application/x-pdf": "Pdf",
  [SOP_MEDIA_TYPES.Docx]: "Docx",
  "text/markdown": "Markdown",
  "text/x-markdown": "Markdown",
  "text/plain": "Text",
  "application/octet-stream": "Generic",
  "binary/octet-stream": "Generic",
};

export type SopContent = { ok: true; kind: SopKind; contentType: string } | { ok: false; why: string };

/**
 * The kind of a document from its first bytes and structure, checked against the declared media
 * type and the file name's extension: either may be generic (`application/octet-stream`, no
 * extension), neither may contradict the bytes. Markdown and plain text have no signature: a valid
 * UTF-8 text is Markdown when its name or declared type says so, plain text otherwise.
 */
export function sopContentOf(bytes: Buffer, fileName: string, declaredType: string): SopContent {
  const found = kindOfBytes(bytes);
  if (found === null) return { ok: false, why: `The content is not a document the service keeps: upload ${ACCEPTED_SOP_TYPES}.` };
  const declared = declaredType.split(";")[0]!.trim().toLowerCase();
  const byType = declared === "" ? "Generic" : DECLARED[declared];
  if (byType === undefined) return { ok: false, why: `${declared} is not a type the service keeps: upload ${ACCEPTED_SOP_TYPES}.` };
  const extension = /\.([A-Za-z0-9]+)$/.exec(fileName.trim())?.[1]?.toLowerCase();
  const byName = extension === undefined ? "Generic" : EXTENSIONS[extension];
  if (byName === undefined) return { ok: false, why: `.${extension} is not a type the service keeps: upload ${ACCEPTED_SOP_TYPES}.` };
  const text = (k: SopKind | "Generic") => k === "Markdown" || k === "Text";
  const fits = (claimed: SopKind | "Generic") => claimed === "Generic" || claimed === found || (found === "Text" && text(claimed));
  if (!fits(byType)) return { ok: false, why: `The file is declared ${declared}, but its content is ${describe(found)}.` };
  if (!fits(byName)) return { ok: false, why: `The file is named .${extension}, but its content is ${describe(found)}.` };
  const kind: SopKind = found === "Text" && (byType === "Markdown" || byName === "Markdown") ? "Markdown" : found;
  const contentType = kind === "Markdown" || kind === "Text" ? `${SOP_MEDIA_TYPES[kind]}; charset=utf-8` : SOP_MEDIA_TYPES[kind];
  return { ok: true, kind, contentType };
}

function describe(kind: SopKind): string {
  return kind === "Pdf" ? "a PDF" : kind === "Docx" ? "a Word document" : "text";
}

/** The kind the bytes themselves show, or null for anything else (images, archives, programs, binary text). */
function kindOfBytes(bytes: Buffer): SopKind | null {
  if (bytes.subarray(0, 5).toString("latin1") === "%PDF-") return "Pdf";
  if (bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04) return isWordPackage(bytes) ? "Docx" : null;
  return isText(bytes) ? "Text" : null;
}

/**
 * A Word document is a ZIP package (ECMA-376) whose parts include `[Content_Types].xml` and
 * `word/document.xml`; their names are stored uncompressed in the archive's headers. Any other ZIP
 * (a spreadsheet, an archive of programs) is not one.
 */
function isWordPackage(bytes: Buffer): boolean {
  return bytes.includes("[Content_Types].xml", 0, "latin1") && bytes.includes("word/document.xml", 0, "latin1");
}

/** Valid UTF-8 (an optional byte order mark) without NUL or other control characters than tab, line breaks and form feed. */
function isText(bytes: Buffer): boolean {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return false;
  }
  // eslint-disable-next-line no-control-regex -- control characters are what it looks for
  return !/[\u0000-\u0008\u000b\u000e-\u001f\u007f]/.test(text);
}
