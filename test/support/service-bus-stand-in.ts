import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import type { AddressInfo, Server, Socket } from "node:net";
import rhea, { type Connection, type Delivery, type EventContext, type Message, type Receiver, type Sender, type Source, type TerminusOptions } from "rhea";

/**
 * A Service Bus namespace in this process, over AMQP 1.0 on 127.0.0.1 and a free port: enough of the
 * broker for the real `@azure/service-bus` client (`connectionString` below) to send, schedule,
 * receive under peek-lock, renew locks, settle and dead-letter against it, so that the adapters are
 * tested over the wire rather than against a fake of the SDK.
 *
 * What it speaks, as the SDK encodes it:
 * - plain AMQP (the connection string's `UseDevelopmentEmulator=true`: no TLS), SASL ANONYMOUS, then
 *   claims-based security: a SAS token put on `$cbs` (`put-token`), checked against the key, before
 *   any link to an entity may attach (`amqp:unauthorized-access` otherwise; `amqp:not-found` for an
 *   entity it does not have);
 * - sending single messages and batches (message format 0x80013700), refused above the link's
 *   `max-message-size`; duplicate detection by message id within the queue's window, on sends and
 *   schedules alike (a duplicate is accepted and dropped);
 * - receiving under peek-lock (the delivery tag is the lock token, in .NET byte order) or
 *   receive-and-delete, with credit and drain; `x-opt-sequence-number`, `x-opt-enqueued-time`,
 *   `x-opt-locked-until`, and the header's delivery count (deliveries before this one, as the broker
 *   sends it: the SDK for JavaScript shows it as is, the .NET SDK and so the Functions host add one);
 * - settling by disposition on the receiving link: accepted completes, modified and released abandon,
 *   rejected with `com.microsoft:dead-letter` dead-letters with the reason and description given;
 *   a disposition after the lock expired gets `com.microsoft:message-lock-lost`;
 * - `<entity>/$management`: `com.microsoft:schedule-message`, `cancel-scheduled-message`,
 *   `peek-message`, `renew-lock`, `update-disposition` (the SDK settles there once the receiving link
 *   is gone);
 * - an expired lock or an abandon counts a delivery; at the queue's `maxDeliveryCount` the message
 *   moves to `<queue>/$deadletterqueue` (`MaxDeliveryCountExceeded`), which numbers its messages on
 *   its own and never dead-letters again.
 *
 * What it does not: sessions, deferral, topics and subscriptions, transactions, time to live and
 * expiry, auto-forwarding, partitioning, the ATOM management API (queues exist because they are
 * configured here), TLS and web sockets, AAD tokens. Nothing persists; time is the process's clock.
 *
 * @example
 * const bus = await startServiceBusStandIn({ queues: { events: { maxDeliveryCount: 3 } } });
 * const client = new ServiceBusClient(bus.connectionString);
 * await client.createSender("events").sendMessages({ messageId: "e1", body: { n: 1 } });
 * bus.stats("events"); // { active: 1, scheduled: 0, locked: 0, deadLettered: 0 }
 */
export async function startServiceBusStandIn(options: ServiceBusStandInOptions): Promise<ServiceBusStandIn> {
  const standIn = new ServiceBusStandIn(options);
  await standIn.listen();
  return standIn;
}

export interface StandInQueueOptions {
  /** Deliveries before a message is dead-lettered. Default 10, as the Bicep sets. */
  maxDeliveryCount?: number;
  /** How long a peek-lock holds a message unless renewed. Default 60 s, as the Bicep sets. */
  lockDurationMs?: number;
  /** Duplicate detection history. Default 10 minutes, as the Bicep sets. */
  duplicateDetectionWindowMs?: number;
  /** The largest message (or batch) a sender may send. Default 256 KiB, the Standard tier's. */
  maxMessageSizeBytes?: number;
}

export interface ServiceBusStandInOptions {
  /** The namespace's queues, by name. */
  queues: Record<string, StandInQueueOptions>;
  /** The SAS key the connection string carries and put-token checks. */
  keyName?: string;
  key?: string;
  /**
   * The broker's clock (ms): enqueue times, schedules, locks, duplicate detection. Default the
   * process's. A token's expiry is the client's, read on the process's clock.
   */
  now?: () => number;
}

/** A message as the broker holds it, for a test to look at. */
export interface StandInMessage {
  sequenceNumber: number;
  messageId: string | undefined;
  /** The body, parsed as JSON when it is a data section holding JSON. */
  body: unknown;
  applicationProperties: Record<string, unknown>;
  state: "active" | "scheduled" | "locked";
  /** Deliveries so far. */
  deliveryCount: number;
  enqueuedAt: Date;
  scheduledFor?: Date;
}

export interface StandInStats {
  active: number;
  scheduled: number;
  locked: number;
  deadLettered: number;
}

/** Service Bus puts a lock token (a GUID) on the wire in .NET's byte order; the SDK reorders it back. */
function lockTokenTag(token: string): Buffer {
  const b = Buffer.from(rhea.string_to_uuid(token));
  return Buffer.from([b[3]!, b[2]!, b[1]!, b[0]!, b[5]!, b[4]!, b[7]!, b[6]!, ...b.subarray(8)]);
}

const BATCH_FORMAT = 0x80013700;
const DEAD_LETTER_SUFFIX = "/$deadletterqueue";
const MANAGEMENT_SUFFIX = "/$management";
/** The `x-opt-message-state` of a scheduled message, as a peek shows it. */
const SCHEDULED_STATE = 2;

interface Lock {
  token: string;
  until: number;
  timer: NodeJS.Timeout;
}

interface Stored {
  sequenceNumber: number;
  /** The message as the sender encoded it, decoded; the broker's annotations are added on the way out. */
  message: Message;
  state: "active" | "scheduled" | "locked";
  deliveries: number;
  enqueuedAt: number;
  scheduledFor?: number;
  scheduleTimer?: NodeJS.Timeout;
  lock?: Lock;
}

/** A queue or its dead-letter sub-queue: what a link attaches to. */
class Entity {
  /** By sequence number, which is also insertion order: iteration is sequence order. */
  readonly messages = new Map<number, Stored>();
  readonly consumers = new Set<Sender>();
  /** Round robin over the consumers with credit. */
  private turn = 0;
  private nextSequence = 1;

  constructor(
    readonly path: string,
    readonly queue: Queue,
    readonly isDeadLetterQueue: boolean,
  ) {}

  add(message: Message, fields: Partial<Stored> = {}): Stored {
    const stored: Stored = { sequenceNumber: this.nextSequence++, message, state: "active", deliveries: 0, enqueuedAt: this.queue.now(), ...fields };
    this.messages.set(stored.sequenceNumber, stored);
    return stored;
  }

  nextConsumer(): Sender | undefined {
    const ready = [...this.consumers].filter((c) => c.is_open() && c.sendable());
    if (ready.length === 0) return undefined;
    return ready[this.turn++ % ready.length];
  }

  byLockToken(token: string): Stored | undefined {
    for (const m of this.messages.values()) if (m.lock?.token === token) return m;
    return undefined;
  }
}

class Queue {
  readonly main: Entity;
  readonly deadLetters: Entity;
  /** Message id → when it was accepted, oldest first. */
  readonly acceptedIds = new Map<string, number>();
  readonly maxDeliveryCount: number;
  readonly lockDurationMs: number;
  readonly duplicateDetectionWindowMs: number;
  readonly maxMessageSizeBytes: number;

  constructor(
    readonly name: string,
    options: StandInQueueOptions,
    readonly now: () => number,
  ) {
    this.main = new Entity(name, this, false);
    this.deadLetters = new Entity(`${name}${DEAD_LETTER_SUFFIX}`, this, true);
    this.maxDeliveryCount = options.maxDeliveryCount ?? 10;
    this.lockDurationMs = options.lockDurationMs ?? 60_000;
    this.duplicateDetectionWindowMs = options.duplicateDetectionWindowMs ?? 10 * 60_000;
    this.maxMessageSizeBytes = options.maxMessageSizeBytes ?? 256 * 1024;
  }

  /** Duplicate detection: true when the id was accepted within the window (the message is then dropped). */
  isDuplicate(messageId: string | undefined): boolean {
    const now = this.now();
    for (const [id, at] of this.acceptedIds) {
      if (at > now - this.duplicateDetectionWindowMs) break;
      this.acceptedIds.delete(id);
    }
    if (messageId === undefined) return false;
    if (this.acceptedIds.has(messageId)) return true;
    this.acceptedIds.set(messageId, now);
    return false;
  }
}

/** An AMQP error the stand-in answers with: a link refused, a request failed, a settlement refused. */
class AmqpFailure extends Error {
  constructor(
    readonly condition: string,
    description: string,
    readonly statusCode = 500,
  ) {
    super(description);
  }
}

/** Per connection: the audiences its put-token calls were granted, with their expiry (ms). */
interface ConnectionState {
  claims: Map<string, number>;
}

export class ServiceBusStandIn {
  /** `Endpoint=sb://127.0.0.1:<port>;SharedAccessKeyName=…;SharedAccessKey=…;UseDevelopmentEmulator=true`. */
  connectionString = "";
  /** The operations the broker performed, in order ("put-token events", "schedule-message events", …), for assertions. */
  readonly operations: string[] = [];

  private readonly queues = new Map<string, Queue>();
  private readonly now: () => number;
  private readonly keyName: string;
  private readonly key: string;
  private readonly container = rhea.create_container({ id: "service-bus-stand-in" });
  private readonly connections = new WeakMap<Connection, ConnectionState>();
  private readonly sockets = new Set<Socket>();
  /** What was delivered on each unsettled peek-lock delivery. */
  private readonly delivered = new WeakMap<Delivery, { entity: Entity; token: string }>();
  private server?: Server;
  private closed = false;

  constructor(options: ServiceBusStandInOptions) {
    this.now = options.now ?? Date.now;
    for (const [name, queueOptions] of Object.entries(options.queues)) this.queues.set(name.toLowerCase(), new Queue(name, queueOptions, this.now));
    this.keyName = options.keyName ?? "RootManageSharedAccessKey";
    this.key = options.key ?? "c3RhbmQtaW4ga2V5";
    this.wire();
  }

  /** @internal Started by startServiceBusStandIn. */
  async listen(): Promise<void> {
    // Connection options of the accepted connections: the broker settles every transfer itself.
    const server = this.container.listen({ port: 0, host: "127.0.0.1", autoaccept: false, treat_modified_as_released: false } as never);
    server.on("connection", (socket: Socket) => {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.once("listening", () => resolve());
    });
    this.server = server;
    const { port } = server.address() as AddressInfo;
    this.connectionString = `Endpoint=sb://127.0.0.1:${port};SharedAccessKeyName=${this.keyName};SharedAccessKey=${this.key};UseDevelopmentEmulator=true`;
  }

  /** The same namespace with a key the broker does not know. */
  connectionStringWithKey(key: string): string {
    return this.connectionString.replace(`SharedAccessKey=${this.key}`, `SharedAccessKey=${key}`);
  }

  /** The queue's messages (active, scheduled and locked), in sequence order. */
  messages(queue: string): StandInMessage[] {
    return [...this.queueNamed(queue).main.messages.values()].map(view);
  }

  /** The queue's dead-letter sub-queue, in its own sequence order. */
  deadLetters(queue: string): (StandInMessage & { reason: unknown; description: unknown })[] {
    return [...this.queueNamed(queue).deadLetters.messages.values()].map((m) => ({
      ...view(m),
      reason: m.message.application_properties?.DeadLetterReason,
      description: m.message.application_properties?.DeadLetterErrorDescription,
    }));
  }

  stats(queue: string): StandInStats {
    const q = this.queueNamed(queue);
    const count = (state: Stored["state"]) => [...q.main.messages.values()].filter((m) => m.state === state).length;
    return { active: count("active"), scheduled: count("scheduled"), locked: count("locked"), deadLettered: q.deadLetters.messages.size };
  }

  /** Drops every connection (the clients see the connection lost) and stops listening. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const q of this.queues.values()) {
      for (const entity of [q.main, q.deadLetters]) {
        for (const m of entity.messages.values()) {
          clearTimeout(m.lock?.timer);
          clearTimeout(m.scheduleTimer);
        }
      }
    }
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private queueNamed(name: string): Queue {
    const q = this.queues.get(name.toLowerCase());
    if (!q) throw new Error(`The stand-in has no queue "${name}".`);
    return q;
  }

  /** `events`, `events/$DeadLetterQueue` (paths are case-insensitive), or undefined. */
  private entityAt(address: string | undefined): Entity | undefined {
    if (!address) return undefined;
    const path = address.toLowerCase();
    if (path.endsWith(DEAD_LETTER_SUFFIX)) return this.queues.get(path.slice(0, -DEAD_LETTER_SUFFIX.length))?.deadLetters;
    return this.queues.get(path)?.main;
  }

  private log(operation: string): void {
    this.operations.push(operation);
  }

  // --- links ------------------------------------------------------------------------------------

  private wire(): void {
    const c = this.container;
    c.on("connection_open", (context: EventContext) => this.connections.set(context.connection, { claims: new Map() }));
    // A client link the broker receives on: $cbs and $management requests, or sends to a queue.
    c.on("receiver_open", (context: EventContext) => this.guard(context.receiver!, () => this.onReceiverOpen(context.receiver!)));
    // A client link the broker sends on: $cbs and $management replies, or receiving from a queue.
    c.on("sender_open", (context: EventContext) => this.guard(context.sender!, () => this.onSenderOpen(context.sender!)));
    c.on("message", (context: EventContext) => this.onMessage(context));
    c.on("sendable", (context: EventContext) => this.pumpFor(context.sender!));
    c.on("sender_draining", (context: EventContext) => this.onDraining(context.sender!));
    for (const outcome of ["accepted", "rejected", "modified", "released"] as const) {
      c.on(outcome, (context: EventContext) => this.onDisposition(context.delivery!, outcome));
    }
    const detach = (context: EventContext) => {
      if (context.sender) for (const q of this.queues.values()) for (const e of [q.main, q.deadLetters]) e.consumers.delete(context.sender);
    };
    c.on("sender_close", detach);
    c.on("sender_error", detach);
    c.on("disconnected", (context: EventContext) => {
      for (const q of this.queues.values()) {
        for (const e of [q.main, q.deadLetters]) for (const s of e.consumers) if (s.connection === context.connection) e.consumers.delete(s);
      }
    });
    // A client that goes away mid-frame is the client's business; the broker carries on.
    c.on("error", () => undefined);
    c.on("connection_error", () => undefined);
  }

  /** Mirrors the client's termini (an attach answered without them is a refusal), or refuses with an error. */
  private guard(link: Sender | Receiver, open: () => void): void {
    const remote = (link as unknown as { remote: { attach: { source?: Source; target?: TerminusOptions } } }).remote.attach;
    link.set_source({ address: "", ...remote.source });
    link.set_target({ address: "", ...remote.target });
    try {
      open();
    } catch (error) {
      const failure = error instanceof AmqpFailure ? error : new AmqpFailure("amqp:internal-error", String(error));
      link.close({ condition: failure.condition, description: failure.message });
    }
  }

  private onReceiverOpen(receiver: Receiver): void {
    const address = receiver.target?.address;
    if (address === "$cbs" || address?.toLowerCase().endsWith(MANAGEMENT_SUFFIX)) return;
    const entity = this.entityAt(address);
    if (!entity) throw new AmqpFailure("amqp:not-found", `The messaging entity '${address}' could not be found.`);
    if (entity.isDeadLetterQueue) throw new AmqpFailure("amqp:not-allowed", `Cannot send to the dead-letter queue '${address}'.`);
    this.authorize(receiver.connection, entity.path);
    (receiver as unknown as { local: { attach: { max_message_size: number } } }).local.attach.max_message_size = entity.queue.maxMessageSizeBytes;
    this.log(`attach sender ${entity.path}`);
  }

  private onSenderOpen(sender: Sender): void {
    const address = sender.source?.address;
    if (address === "$cbs" || address?.toLowerCase().endsWith(MANAGEMENT_SUFFIX)) return;
    const entity = this.entityAt(address);
    if (!entity) throw new AmqpFailure("amqp:not-found", `The messaging entity '${address}' could not be found.`);
    this.authorize(sender.connection, entity.path);
    const remote = (sender as unknown as { remote: { attach: { snd_settle_mode?: number; rcv_settle_mode?: number } } }).remote.attach;
    const internals = sender as unknown as SenderInternals;
    internals.local.attach.snd_settle_mode = remote.snd_settle_mode ?? 0;
    internals.local.attach.rcv_settle_mode = remote.rcv_settle_mode ?? 0;
    // Drain: rhea answers a drain only while credit is left; the broker answers it in every case
    // (credit used up by transfers that crossed the request included), as the SDK waits for it.
    internals._get_drain = function () {
      if (!this._draining || !this._drained) return false;
      this.delivery_count += this.credit;
      this.credit = 0;
      this._draining = false;
      return true;
    };
    entity.consumers.add(sender);
    this.log(`attach receiver ${entity.path} ${remote.snd_settle_mode === 1 ? "receiveAndDelete" : "peekLock"}`);
  }

  // --- claims-based security --------------------------------------------------------------------

  private authorize(connection: Connection, path: string): void {
    const claims = this.connections.get(connection)?.claims ?? new Map<string, number>();
    const now = Date.now();
    const wanted = path.toLowerCase();
    for (const [audience, expires] of claims) {
      if (expires > now && (audience === "" || wanted === audience || wanted.startsWith(`${audience}/`))) return;
    }
    throw new AmqpFailure("amqp:unauthorized-access", `Unauthorized access. No valid token for '${path}'. Put a token on $cbs first.`);
  }

  /** put-token: `SharedAccessSignature sr=<audience>&sig=<HMAC-SHA256(key, sr \n se)>&se=<expiry>&skn=<key name>`. */
  private putToken(connection: Connection, request: Message): { code: number; description: string } {
    const properties = request.application_properties ?? {};
    const token = typeof request.body === "string" ? request.body : "";
    const fields = new Map(
      token
        .replace(/^SharedAccessSignature /, "")
        .split("&")
        .map((pair) => pair.split("=") as [string, string]),
    );
    const [sr, sig, se, skn] = [fields.get("sr"), fields.get("sig"), fields.get("se"), fields.get("skn")];
    if (properties.type !== "servicebus.windows.net:sastoken" || !sr || !sig || !se || !skn) return { code: 400, description: "A SAS token is expected." };
    const expected = createHmac("sha256", this.key).update(`${sr}\n${se}`).digest("base64");
    const given = Buffer.from(decodeURIComponent(sig));
    const valid = decodeURIComponent(skn) === this.keyName && given.length === Buffer.byteLength(expected) && timingSafeEqual(given, Buffer.from(expected));
    if (!valid) return { code: 401, description: "InvalidSignature: The token has an invalid signature." };
    const expires = Number(se) * 1000;
    if (!(expires > Date.now())) return { code: 401, description: "ExpiredToken: The token is expired." };
    // The audience is a URI on the namespace; what it grants is the entity path after the host.
    const audience = new URL(decodeURIComponent(sr)).pathname.replace(/^\/+|\/+$/g, "").toLowerCase();
    this.connections.get(connection)?.claims.set(audience, expires);
    this.log(`put-token ${audience}`);
    return { code: 202, description: "Accepted" };
  }

  // --- requests and sends -----------------------------------------------------------------------

  private onMessage(context: EventContext): void {
    const receiver = context.receiver!;
    const delivery = context.delivery!;
    const address = receiver.target?.address ?? "";
    try {
      if (address === "$cbs") {
        const request = context.message as Message;
        const { code, description } = this.putToken(context.connection, request);
        this.reply(context.connection, request, { "status-code": code, "status-description": description });
      } else if (address.toLowerCase().endsWith(MANAGEMENT_SUFFIX)) {
        this.onManagementRequest(context.connection, address.slice(0, -MANAGEMENT_SUFFIX.length), context.message as Message);
      } else {
        this.onSend(receiver, context.message as Message | Buffer, (context as { format?: number }).format);
      }
      delivery.accept();
    } catch (error) {
      const failure = error instanceof AmqpFailure ? error : new AmqpFailure("amqp:internal-error", String(error));
      delivery.reject({ condition: failure.condition, description: failure.message });
    }
  }

  private onSend(receiver: Receiver, message: Message | Buffer, format: number | undefined): void {
    const entity = this.entityAt(receiver.target?.address)!;
    const queue = entity.queue;
    const size = Buffer.isBuffer(message) ? message.length : rhea.message.encode(message).length;
    if (size > queue.maxMessageSizeBytes) {
      throw new AmqpFailure("amqp:link:message-size-exceeded", `The message of ${size} bytes exceeds the limit of ${queue.maxMessageSizeBytes} bytes.`);
    }
    const messages = format === BATCH_FORMAT ? batchContents(message as Buffer) : [message as Message];
    let accepted = 0;
    for (const m of messages) {
      if (queue.isDuplicate(idOf(m))) continue;
      const scheduledFor = m.message_annotations?.["x-opt-scheduled-enqueue-time"] as Date | undefined;
      if (scheduledFor && scheduledFor.getTime() > this.now()) this.schedule(entity, m, scheduledFor.getTime());
      else entity.add(m);
      accepted += 1;
    }
    this.log(`send ${entity.path} ${messages.length}${format === BATCH_FORMAT ? " (batch)" : ""}, ${accepted} accepted`);
    this.pump(entity);
  }

  private onManagementRequest(connection: Connection, path: string, request: Message): void {
    const operation = String(request.application_properties?.operation ?? "");
    const body = (request.body ?? {}) as Record<string, unknown>;
    let status = 200;
    let response: Record<string, unknown> = {};
    let error: AmqpFailure | undefined;
    try {
      const entity = this.entityAt(path);
      if (!entity) throw new AmqpFailure("amqp:not-found", `The messaging entity '${path}' could not be found.`, 404);
      this.authorize(connection, `${entity.path}${MANAGEMENT_SUFFIX}`);
      this.log(`${operation.replace(/^com\.microsoft:/, "")} ${entity.path}`);
      switch (operation) {
        case "com.microsoft:schedule-message":
          response = { "sequence-numbers": rhea.types.wrap_array(this.scheduleRequest(entity, body), 0x81, undefined) };
          break;
        case "com.microsoft:cancel-scheduled-message":
          for (const n of listOf(body["sequence-numbers"])) {
            const stored = entity.messages.get(Number(n));
            if (stored?.state === "scheduled") {
              clearTimeout(stored.scheduleTimer);
              entity.messages.delete(stored.sequenceNumber);
            }
          }
          break;
        case "com.microsoft:peek-message": {
          const from = Number(body["from-sequence-number"] ?? 0);
          const count = Number(body["message-count"] ?? 1);
          const page = [...entity.messages.values()].filter((m) => m.sequenceNumber >= from).slice(0, count);
          if (page.length === 0) status = 204;
          else response = { messages: page.map((m) => rhea.types.wrap_map({ message: rhea.message.encode(this.outgoing(m)) })) };
          break;
        }
        case "com.microsoft:renew-lock": {
          const expirations = listOf(body["lock-tokens"]).map((t) => {
            const stored = this.lockedBy(entity, tokenOf(t));
            stored.lock!.until = this.now() + entity.queue.lockDurationMs;
            this.armLock(entity, stored);
            return new Date(stored.lock!.until);
          });
          response = { expirations: rhea.types.wrap_array(expirations, 0x83, undefined) };
          break;
        }
        case "com.microsoft:update-disposition": {
          const disposition = String(body["disposition-status"]);
          for (const t of listOf(body["lock-tokens"])) {
            const stored = this.lockedBy(entity, tokenOf(t));
            const modify = (body["properties-to-modify"] ?? {}) as Record<string, unknown>;
            if (disposition === "completed") this.complete(entity, stored);
            else if (disposition === "abandoned") this.abandon(entity, stored, modify);
            else if (disposition === "suspended") {
              this.deadLetter(entity, stored, String(body["deadletter-reason"] ?? ""), body["deadletter-description"], modify);
            } else throw new AmqpFailure("amqp:not-implemented", `The stand-in does not support the disposition '${disposition}'.`, 501);
          }
          break;
        }
        default:
          throw new AmqpFailure("amqp:not-implemented", `The stand-in does not support '${operation}'.`, 501);
      }
    } catch (e) {
      error = e instanceof AmqpFailure ? e : new AmqpFailure("amqp:internal-error", String(e));
    }
    // $management answers with statusCode/statusDescription (the SDK reads statusCode for a peek's 204).
    this.reply(
      connection,
      request,
      error
        ? { statusCode: error.statusCode, statusDescription: error.message, errorCondition: error.condition }
        : { statusCode: status, statusDescription: status === 204 ? "No Content" : "OK" },
      error || status === 204 ? undefined : response,
    );
  }

  private scheduleRequest(entity: Entity, body: Record<string, unknown>): number[] {
    if (entity.isDeadLetterQueue) throw new AmqpFailure("amqp:not-allowed", "Cannot schedule on a dead-letter queue.", 400);
    return listOf(body.messages).map((entry) => {
      const encoded = (entry as { message: Buffer }).message;
      const m = decode(encoded);
      const at = (m.message_annotations?.["x-opt-scheduled-enqueue-time"] as Date | undefined)?.getTime() ?? this.now();
      // A duplicate is dropped, as on a send; its sequence number is one the queue never uses.
      if (entity.queue.isDuplicate(idOf(m))) return 0;
      return this.schedule(entity, m, at).sequenceNumber;
    });
  }

  /** Sends a reply on the connection's link whose name or target is the request's reply-to. */
  private reply(connection: Connection, request: Message, applicationProperties: Record<string, unknown>, body?: unknown): void {
    const replyTo = request.reply_to;
    let link: Sender | undefined;
    connection.each_sender((s: Sender) => {
      if (!link && (s.name === replyTo || s.target?.address === replyTo)) link = s;
    });
    link?.send({ correlation_id: request.message_id, application_properties: applicationProperties, body: body ?? null } as Message);
  }

  // --- scheduling -------------------------------------------------------------------------------

  private schedule(entity: Entity, message: Message, at: number): Stored {
    const stored = entity.add(message, { state: "scheduled", scheduledFor: at });
    const activate = () => {
      if (entity.messages.get(stored.sequenceNumber) !== stored) return;
      const wait = at - this.now();
      // setTimeout fires at once above 2^31-1 ms; a far schedule is re-armed in steps.
      if (wait > 0) {
        stored.scheduleTimer = setTimeout(activate, Math.min(wait, 2 ** 31 - 1)).unref();
        return;
      }
      stored.state = "active";
      stored.enqueuedAt = this.now();
      this.pump(entity);
    };
    activate();
    return stored;
  }

  // --- delivery ---------------------------------------------------------------------------------

  private pumpFor(sender: Sender): void {
    const entity = this.entityAt(sender.source?.address);
    if (entity?.consumers.has(sender)) this.pump(entity);
  }

  /** Hands active messages, lowest sequence number first, to consumers with credit. */
  private pump(entity: Entity): void {
    if (this.closed) return;
    for (const stored of entity.messages.values()) {
      if (stored.state !== "active") continue;
      const consumer = entity.nextConsumer();
      if (!consumer) return;
      this.deliver(entity, stored, consumer);
    }
  }

  private deliver(entity: Entity, stored: Stored, consumer: Sender): void {
    const receiveAndDelete = (consumer as unknown as SenderInternals).local.attach.snd_settle_mode === 1;
    if (receiveAndDelete) {
      entity.messages.delete(stored.sequenceNumber);
      consumer.send(this.outgoing(stored));
      stored.deliveries += 1;
      return;
    }
    const token = randomUUID();
    stored.state = "locked";
    stored.lock = { token, until: this.now() + entity.queue.lockDurationMs, timer: undefined as unknown as NodeJS.Timeout };
    this.armLock(entity, stored);
    const delivery = consumer.send(this.outgoing(stored), lockTokenTag(token));
    stored.deliveries += 1;
    this.delivered.set(delivery, { entity, token });
  }

  /** The message as the broker sends it: the sender's message with the broker's header and annotations. */
  private outgoing(stored: Stored): Message {
    const { message } = stored;
    const annotations: Record<string, unknown> = {
      ...message.message_annotations,
      "x-opt-sequence-number": rhea.types.wrap_long(stored.sequenceNumber),
      "x-opt-enqueued-time": new Date(stored.scheduledFor !== undefined && stored.state === "scheduled" ? stored.scheduledFor : stored.enqueuedAt),
    };
    if (stored.lock) annotations["x-opt-locked-until"] = new Date(stored.lock.until);
    if (stored.state === "scheduled") annotations["x-opt-message-state"] = SCHEDULED_STATE;
    // The header counts the deliveries before this one (for a peek: so far); deliver() counts this
    // one after encoding it.
    return { ...message, delivery_count: stored.deliveries, message_annotations: annotations } as Message;
  }

  private armLock(entity: Entity, stored: Stored): void {
    const lock = stored.lock!;
    clearTimeout(lock.timer);
    lock.timer = setTimeout(() => {
      if (stored.lock !== lock) return;
      this.log(`lock expired ${entity.path} #${stored.sequenceNumber}`);
      this.release(entity, stored, {});
    }, Math.max(0, lock.until - this.now())).unref();
  }

  private lockedBy(entity: Entity, token: string): Stored {
    const stored = entity.byLockToken(token);
    if (!stored || stored.lock!.until <= this.now()) {
      throw new AmqpFailure(
        "com.microsoft:message-lock-lost",
        "The lock supplied is invalid. Either the lock expired, or the message has already been removed from the queue.",
        410,
      );
    }
    return stored;
  }

  private onDraining(sender: Sender): void {
    this.pumpFor(sender);
    sender.set_drained(true);
    (sender.connection as unknown as { _register(): void })._register();
  }

  /** A settlement on the receiving link: the broker answers with the outcome, settled. */
  private onDisposition(delivery: Delivery, outcome: "accepted" | "rejected" | "modified" | "released"): void {
    const held = this.delivered.get(delivery);
    if (!held) return;
    this.delivered.delete(delivery);
    const { entity, token } = held;
    const state = delivery.remote_state as { error?: { condition?: string; info?: Record<string, unknown> }; undeliverable_here?: boolean; message_annotations?: Record<string, unknown> };
    try {
      const stored = this.lockedBy(entity, token);
      if (outcome === "accepted") this.complete(entity, stored);
      else if (outcome === "rejected") {
        const info = { ...state?.error?.info };
        const { DeadLetterReason: reason, DeadLetterErrorDescription: description, ...modify } = info;
        this.deadLetter(entity, stored, String(reason ?? ""), description, modify);
      } else if (outcome === "modified" && state?.undeliverable_here) {
        throw new AmqpFailure("amqp:not-implemented", "The stand-in does not support deferral.");
      } else this.abandon(entity, stored, (outcome === "modified" && state?.message_annotations) || {});
      delivery.update(true, outcomes.accepted().described());
    } catch (error) {
      const failure = error instanceof AmqpFailure ? error : new AmqpFailure("amqp:internal-error", String(error));
      delivery.update(true, outcomes.rejected({ error: { condition: failure.condition, description: failure.message } }).described());
    }
  }

  private unlock(stored: Stored): void {
    clearTimeout(stored.lock?.timer);
    stored.lock = undefined;
  }

  private complete(entity: Entity, stored: Stored): void {
    this.unlock(stored);
    entity.messages.delete(stored.sequenceNumber);
    this.log(`complete ${entity.path} #${stored.sequenceNumber}`);
  }

  private abandon(entity: Entity, stored: Stored, modify: Record<string, unknown>): void {
    this.log(`abandon ${entity.path} #${stored.sequenceNumber}`);
    this.release(entity, stored, modify);
  }

  /** Abandoned or lock expired: a delivery used; back on the queue, or dead-lettered at the maximum. */
  private release(entity: Entity, stored: Stored, modify: Record<string, unknown>): void {
    this.unlock(stored);
    if (Object.keys(modify).length > 0) stored.message.application_properties = { ...stored.message.application_properties, ...modify };
    if (!entity.isDeadLetterQueue && stored.deliveries >= entity.queue.maxDeliveryCount) {
      this.deadLetter(entity, stored, "MaxDeliveryCountExceeded", `Message could not be consumed after ${stored.deliveries} delivery attempts.`, {});
      return;
    }
    stored.state = "active";
    this.pump(entity);
  }

  private deadLetter(entity: Entity, stored: Stored, reason: string, description: unknown, modify: Record<string, unknown>): void {
    this.unlock(stored);
    entity.messages.delete(stored.sequenceNumber);
    const target = entity.queue.deadLetters;
    const applicationProperties: Record<string, unknown> = { ...stored.message.application_properties, ...modify, DeadLetterReason: reason };
    if (description !== undefined && description !== null) applicationProperties.DeadLetterErrorDescription = String(description);
    // A dead letter keeps its enqueue time and delivery count, and takes the next number of the sub-queue.
    const dead = target.add({ ...stored.message, application_properties: applicationProperties }, { deliveries: stored.deliveries, enqueuedAt: stored.enqueuedAt });
    this.log(`dead-letter ${entity.path} #${stored.sequenceNumber} as #${dead.sequenceNumber}: ${reason}`);
    if (entity !== target) this.pump(target);
  }
}

interface SenderInternals {
  local: { attach: { snd_settle_mode?: number; rcv_settle_mode?: number } };
  credit: number;
  delivery_count: number;
  _draining: boolean;
  _drained: boolean;
  _get_drain(this: SenderInternals): boolean;
}

/** The messages of a batch: the envelope's data sections each hold one encoded message. */
function batchContents(raw: Buffer): Message[] {
  const envelope = decode(raw);
  const section = envelope.body as { content: Buffer | Buffer[]; multiple?: boolean };
  const parts = section.multiple ? (section.content as Buffer[]) : [section.content as Buffer];
  return parts.map(decode);
}

function decode(encoded: Buffer): Message {
  return rhea.message.decode(encoded) as unknown as Message;
}

/** The outcomes the broker settles with (rhea defines them, its typings do not list them). */
const outcomes = rhea.message as unknown as Record<"accepted" | "rejected", (fields?: object) => { described(): unknown }>;

function idOf(message: Message): string | undefined {
  return message.message_id === undefined || message.message_id === null ? undefined : String(message.message_id);
}

/** A uuid as rhea decodes it (16 bytes) to its string form. */
function tokenOf(value: unknown): string {
  return Buffer.isBuffer(value) ? rhea.uuid_to_string(value) : String(value);
}

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
}

function view(m: Stored): StandInMessage {
  return {
    sequenceNumber: m.sequenceNumber,
    messageId: idOf(m.message),
    body: bodyOf(m.message),
    applicationProperties: { ...m.message.application_properties },
    state: m.state,
    deliveryCount: m.deliveries,
    enqueuedAt: new Date(m.enqueuedAt),
    ...(m.scheduledFor !== undefined ? { scheduledFor: new Date(m.scheduledFor) } : {}),
  };
}

function bodyOf(message: Message): unknown {
  const body = message.body as { typecode?: number; content?: unknown } | undefined;
  if (body && body.typecode === 0x75 && Buffer.isBuffer(body.content)) {
    const text = body.content.toString("utf8");
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return message.body;
}
