// Turns the shell examples of the README and the guides in docs/ into one bash script that a test can
// run against real processes, so that every example keeps working when pasted in order.

/** The ports the script uses instead of the documents' 7071 (the service) and 8443 (the receiver). */
export interface WalkthroughPorts {
  host: number;
  receiver: number;
}

/**
 * One ```sh block of a document, with the section it is in and the line it starts on; or a source
 * block that names the file a reader saves it as in its first line (`// list-incidents.mts: …`).
 */
export interface ShellBlock {
  section: string;
  line: number;
  text: string;
  /** Set for a source block: the reader saves `text` under this name before the next command. */
  file?: string;
}

/** A fence that opens a source block a reader saves as a file: ```ts, ```js, ```json. */
const SOURCE_FENCE = /^```(ts|js|json)$/;
const SAVED_AS = /^\/\/ ([\w.-]+\.\w+):/;

/**
 * The ```sh blocks (and saved source files) of a document: from the heading `from` up to (not
 * including) the heading `until` when a range is given, otherwise all of them.
 */
export function shellBlocks(document: string, range?: { from: string; until: string }): ShellBlock[] {
  const lines = document.split("\n");
  const blocks: ShellBlock[] = [];
  let section = "";
  let inside = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!inside && /^#{2,3} /.test(line)) {
      section = line.replace(/^#+ /, "");
      continue;
    }
    if (!inside && line === "```sh") {
      inside = true;
      blocks.push({ section, line: i + 2, text: "" });
      continue;
    }
    const savedAs = SOURCE_FENCE.test(line) ? SAVED_AS.exec(lines[i + 1] ?? "")?.[1] : undefined;
    if (!inside && savedAs) {
      inside = true;
      blocks.push({ section, line: i + 2, text: "", file: savedAs });
      continue;
    }
    if (inside && line === "```") {
      inside = false;
      continue;
    }
    if (inside) blocks[blocks.length - 1]!.text += line + "\n";
  }
  if (!range) return blocks;
  const start = blocks.findIndex((b) => b.section === range.from);
  const end = blocks.findIndex((b) => b.section === range.until);
  if (start < 0 || end < 0) throw new Error(`the document has no sh blocks under "${range.from}" or "${range.until}"`);
  return blocks.slice(start, end);
}

/** The names an `npm ... start` or `npm run receiver` line sets before the command, as NAME=value words. */
function leadingAssignments(command: string): string[] {
  return command.match(/\b[A-Z_][A-Z0-9_]*=\S+/g) ?? [];
}

/** A logical line's command part: without a trailing `# comment` that follows whitespace. */
function withoutComment(line: string): string {
  return line.replace(/\s+#.*$/, "").replace(/^#.*$/, "");
}

/**
 * One block as bash: the lines that start the service or the receiver become calls of the script's
 * `start_host` / `start_receiver` (which stand in for a terminal running them), `npm run sign-in`
 * becomes `sign_in` (the built script, run from the repository rather than the reader's checkout), a
 * `curl` whose comment says `→ NNN` expects that status, and the ports are the test's. Everything
 * else runs as written.
 */
export function blockAsBash(block: ShellBlock, ports: WalkthroughPorts): string {
  if (block.file) return withPorts(`cat > ${quote(block.file)} <<'README_SOURCE_BLOCK'\n${block.text}README_SOURCE_BLOCK`, ports);
  // Join backslash continuations so a start command written over several lines is seen whole.
  // A NUL stands for a continued line while the block is split into lines: no README text has one.
  const logical = block.text.replace(/\\\n/g, "\u0000").split("\n");
  const out = logical.map((raw) => {
    // eslint-disable-next-line no-control-regex -- the NUL put in for a continued line above
    const line = raw.replace(/\u0000/g, " ");
    const command = withoutComment(line).trim();
    if (/(^|&&\s*|\s)npm (ci && npm )?start$/.test(command)) return `start_host ${leadingAssignments(command.replace(/npm .*$/, "")).map(quote).join(" ")}`;
    if (/(^|&&\s*)npm run receiver$/.test(command)) return "start_receiver";
    const expected = /#\s*→\s*(\d{3})\b/.exec(line)?.[1];
    // eslint-disable-next-line no-control-regex -- the NUL put in for a continued line above
    const kept = raw.replace(/\u0000/g, "\\\n").replace(/\bnpm run (-s )?sign-in --(?= )/g, "sign_in");
    return expected && /^\s*curl\b/.test(kept) ? kept.replace(/^(\s*)curl\b/, `$1EXPECT_STATUS=${expected} curl`) : kept;
  });
  return withPorts(out.join("\n"), ports);
}

/** The documents' ports (7071 for the service, 8443 for the receiver) replaced by the test's. */
const withPorts = (text: string, ports: WalkthroughPorts) =>
  text.replaceAll("localhost:7071", `localhost:${ports.host}`).replaceAll("localhost:8443", `localhost:${ports.receiver}`);

const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

/**
 * The bash the blocks run in. `curl` fails the script on an HTTP status it did not expect (any 4xx
 * or 5xx, or not the `EXPECT_STATUS` given); `start_host` and `start_receiver` stop the previous
 * process and start the built service or receiver with the given settings in the script's directory
 * (the reader's checkout), wait until it is listening and, as the reader is told to, paste the
 * service's `export ID=… SECRET=…` line when it prints one; `sign_in` is `npm run sign-in` against the
 * service.
 */
export function prelude(repo: string, ports: WalkthroughPorts): string {
  return `set -eu -o pipefail
REPO=${quote(repo)}
HOST_PID=; RECEIVER_PID=
stop() { if [ -n "$1" ]; then kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; fi; }
trap 'stop "$HOST_PID"; stop "$RECEIVER_PID"' EXIT
trap 'echo "README COMMAND FAILED (line $LINENO): $BASH_COMMAND" >&2' ERR
size_of() { wc -c < "$1" 2>/dev/null || echo 0; }
# Waits for the pattern in what the file gained past byte $4: a started process's redirection runs in
# the child, after \`&\` has returned, so the file may still hold the previous process's lines.
await_line() { # file pattern what-is-awaited [from-byte, 0 when not given]
  for _ in $(seq 1 600); do tail -c "+$((\${4:-0} + 1))" "$1" 2>/dev/null | grep -q -- "$2" && return 0; sleep 0.2; done
  echo "waited 120 s for $3; $1 says:" >&2; cat "$1" >&2; return 1
}
start_host() {
  stop "$HOST_PID"
  : > host.log
  env "$@" PORT=${ports.host} node "$REPO/dist/shared/hosts/local/main.js" >> host.log 2>&1 &
  HOST_PID=$!
  await_line host.log "listening on" "the service to listen" 0
  local line; line=$(grep -Eo 'export ID=[^ ]+ SECRET=soms_[^ ]+' host.log | tail -n 1 || true)
  if [ -n "$line" ]; then eval "$line"; fi
  echo "[walkthrough] the service is listening on port ${ports.host}"
}
sign_in() {
  BASE=http://localhost:${ports.host} node "$REPO/dist/scripts/sign-in.js" "$@"
}
start_receiver() {
  stop "$RECEIVER_PID"
  local from; from=$(size_of receiver.log)
  node "$REPO/dist/scripts/webhook-receiver/main.js" --port ${ports.receiver} >> receiver.log 2>&1 &
  RECEIVER_PID=$!
  await_line receiver.log "NODE_EXTRA_CA_CERTS" "the receiver to listen" "$from"
  echo "[walkthrough] the receiver is listening on port ${ports.receiver}"
}
curl() {
  local body status
  body=$(mktemp)
  status=$(command curl -sS -o "$body" -w '%{http_code}' "$@") || { cat "$body"; rm -f "$body"; echo "curl could not complete: $*" >&2; return 1; }
  cat "$body"; rm -f "$body"; echo >&2
  if [ -n "\${EXPECT_STATUS:-}" ]; then
    [ "$status" = "$EXPECT_STATUS" ] || { echo "expected HTTP $EXPECT_STATUS, got $status: curl $*" >&2; return 22; }
  elif [ "$status" -ge 400 ]; then
    echo "HTTP $status: curl $*" >&2; return 22
  fi
}
`;
}
