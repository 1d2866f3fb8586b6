/**
 * `npm run dlq -- list [queue...] [--max N]`
 * `npm run dlq -- show <queue> <sequenceNumber>`
 * `npm run dlq -- resubmit <queue> <sequenceNumber...> | --all`
 *
 * The dead-letter queues of the deployment's Service Bus queues: what used up its deliveries, why,
 * and putting it back. The namespace comes from `--namespace`, `SERVICE_BUS_NAMESPACE` (an output of
 * `azd provision`: `set -a; eval "$(azd env get-values)"; set +a`) or the app's own `SERVICEBUS__fullyQualifiedNamespace`
 * / `SERVICEBUS`; sign-in is DefaultAzureCredential (azd or az login), which needs Service Bus Data
 * Receiver and Sender on the namespace (the Bicep grants them to the deployer).
 */
import { parseArgs } from "node:util";
import { ConfigError } from "../shared/platform/config/config";
import { serviceBusDeadLetters, type DeadLetterQueues } from "../shared/platform/queue/dead-letters";
import { queueNames } from "../shared/platform/queue/queue-names";
import { createServiceBusClient } from "../shared/platform/queue/service-bus/service-bus-queue";
import { exitWhenWritten } from "./exit-when-written";

const USAGE = `usage: npm run dlq -- list [queue...] [--max N]
       npm run dlq -- show <queue> <sequenceNumber>
       npm run dlq -- resubmit <queue> <sequenceNumber...> | --all
queues: ${Object.values(queueNames).join(", ")}`;

export interface DlqDeps {
  /** The dead-letter queues to act on; by default the namespace's, from the environment. */
  deadLetters?: DeadLetterQueues;
}

/** Runs one command; returns the process exit code (0 done, 1 something asked for was not there). */
export async function runDlq(argv: string[], env: NodeJS.ProcessEnv, print: (line: string) => void, deps: DlqDeps = {}): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      max: { type: "string", default: "50" },
      all: { type: "boolean", default: false },
      namespace: { type: "string" },
    },
    allowPositionals: true,
    strict: true,
  });
  const [command, ...rest] = positionals;
  const known = new Set<string>(Object.values(queueNames));
  const queueArg = (name: string | undefined) => {
    if (!name || !known.has(name)) throw new ConfigError(`A queue name is required: one of ${[...known].join(", ")}.\n${USAGE}`);
    return name;
  };
  const close: (() => Promise<void>)[] = [];
  const dlq = deps.deadLetters ?? connect(values.namespace, env, close);
  try {
    switch (command) {
      case "list": {
        const max = Number(values.max);
        if (!Number.isInteger(max) || max <= 0) throw new ConfigError(`--max must be a positive integer.\n${USAGE}`);
        const queues = rest.length > 0 ? rest.map(queueArg) : [...known];
        for (const queue of queues) {
          const letters = await dlq.list(queue, max);
          print(`${queue}: ${letters.length === 0 ? "no dead letters" : `${letters.length}${letters.length === max ? "+" : ""} dead letter(s)`}`);
          for (const d of letters) {
            print(`  #${d.sequenceNumber}  ${d.messageId}  deliveries ${d.deliveryCount}  enqueued ${d.enqueuedAt ?? "?"}  ${d.reason}${d.description ? `: ${d.description}` : ""}`);
          }
        }
        return 0;
      }
      case "show": {
        const [queue, sequenceNumber] = [queueArg(rest[0]), rest[1]];
        if (!sequenceNumber) throw new ConfigError(`A sequence number is required.\n${USAGE}`);
        const found = await dlq.show(queue, sequenceNumber);
        if (!found) {
          print(`${queue}: no dead letter #${sequenceNumber}`);
          return 1;
        }
        print(JSON.stringify(found, null, 2));
        return 0;
      }
      case "resubmit": {
        const queue = queueArg(rest[0]);
        const numbers = rest.slice(1);
        if (values.all === numbers.length > 0) throw new ConfigError(`Give either sequence numbers or --all.\n${USAGE}`);
        const result = await dlq.resubmit(queue, values.all ? "all" : numbers);
        for (const r of result.resubmitted) print(`${queue}: resubmitted #${r.sequenceNumber} as ${r.messageId}`);
        for (const n of result.missing) print(`${queue}: no dead letter #${n}`);
        if (result.resubmitted.length === 0 && result.missing.length === 0) print(`${queue}: no dead letters`);
        return result.missing.length > 0 ? 1 : 0;
      }
      default:
        throw new ConfigError(USAGE);
    }
  } finally {
    for (const c of close) await c();
  }
}

function connect(namespace: string | undefined, env: NodeJS.ProcessEnv, close: (() => Promise<void>)[]): DeadLetterQueues {
  const fullyQualifiedNamespace = namespace ?? env.SERVICE_BUS_NAMESPACE ?? env.SERVICEBUS__fullyQualifiedNamespace;
  const client = createServiceBusClient({ fullyQualifiedNamespace, connectionString: fullyQualifiedNamespace ? undefined : env.SERVICEBUS });
  close.push(() => client.close());
  return serviceBusDeadLetters(client);
}

if (require.main === module) {
  runDlq(process.argv.slice(2), process.env, (line) => process.stdout.write(line + "\n")).then(
    (code) => exitWhenWritten(code),
    (error: unknown) => {
      process.stderr.write(`dlq failed: ${error instanceof Error ? error.message : String(error)}\n`);
      exitWhenWritten(2);
    },
  );
}
