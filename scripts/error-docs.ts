/**
 * `npm run docs:errors`: writes docs/errors.md from the error-code table
 * (shared/platform/errors/error-codes.ts), the same table the problem documents, the OpenAPI examples
 * and the served error reference (`GET /api/v2/errors`) read. `test/unit/error-docs.test.ts` fails
 * when the file differs from what this generates.
 */
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { errorCodeMeaning, errorCodes, type ErrorCode } from "../shared/platform/errors/error-codes";

/** Where the page lives, from the repository root. */
export const ERROR_DOCS_PATH = "docs/errors.md";

const INTRO = `# Error reference

<!-- Generated from shared/platform/errors/error-codes.ts by \`npm run docs:errors\`: edit the table or
     the template in scripts/error-docs.ts, not this file. -->

Every error is an RFC 7807 problem document served as \`application/problem+json\`, with the fields
\`type\`, \`title\`, \`status\`, \`detail\`, \`instance\`, \`code\`, \`requestId\`, \`timestamp\`, and optionally
\`target\` and \`errors\` (JSON property path → messages; \`""\` is the object itself), and on a 504 of the
request's own deadline \`commit\` (\`none\`: nothing was changed, send it again; \`committed\` or
\`in-progress\`: read the resource first). Clients switch on
\`code\`; \`title\` and \`detail\` may be reworded. \`requestId\` equals the \`X-Request-Id\` response header.
The running service serves this table at \`GET /api/v2/errors\`, and each problem's \`type\` points at
its row there (\`/api/v2/errors#CODE\`).`;

const OUTRO = "A client that disconnects mid-request gets nothing; the access log records status 499.";

/** A table cell: one line, no column separator. */
function cell(text: string): string {
  return text.replace(/\s+/g, " ").replace(/\|/g, "\\|");
}

/** The whole of docs/errors.md. */
export function errorDocs(): string {
  const rows = (Object.keys(errorCodes) as ErrorCode[]).map((code) => {
    const { status, title } = errorCodes[code];
    return `| \`${code}\` | ${status} | ${cell(title)} | ${cell(errorCodeMeaning(code))} |`;
  });
  return [INTRO, "", "| code | status | title | when |", "|---|---|---|---|", ...rows, "", OUTRO, ""].join("\n");
}

if (require.main === module) {
  const path = resolve(process.argv[2] ?? ERROR_DOCS_PATH);
  writeFileSync(path, errorDocs());
  process.stdout.write(`wrote ${path}\n`);
}
