import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api, call, csrf, type Problem } from "../api/client";
import type { paths } from "../api/openapi";
import { ifMatch } from "../etag";
import { useMe } from "../session";
import { Badge, Empty, Field, Notice, ProblemBanner, SaveProblem, Select, Time, useAction, useResource } from "../ui";

const DETAIL = "/api/v2/portal/workspaces/{workspaceId}/incidents/{source}/{incidentId}";
type Detail = paths[typeof DETAIL]["get"]["responses"][200]["content"]["application/json"]["data"];
type Incident = Detail["incident"];
type Sla = Incident["sla"];
type IncidentPath = paths[typeof DETAIL]["get"]["parameters"]["path"];
type StatusBody = NonNullable<paths[`${typeof DETAIL}/status`]["put"]["requestBody"]>["content"]["application/json"];
type Status = StatusBody["status"];
type Classification = NonNullable<StatusBody["classification"]>;
type Assignee = paths[`${typeof DETAIL}/assignees`]["get"]["responses"][200]["content"]["application/json"]["data"][number];
type TicketLink = paths[`${typeof DETAIL}/tickets`]["get"]["responses"][200]["content"]["application/json"]["data"][number];

const OPEN_STATUSES: readonly { value: Exclude<Status, "Closed">; label: string }[] = [
  { value: "New", label: "New" },
  { value: "Active", label: "Active" },
  { value: "OnHold", label: "On hold (pauses the SLA clock)" },
  { value: "WaitingOnCustomer", label: "Waiting on customer (pauses the SLA clock)" },
];

const CLASSIFICATIONS: readonly { value: Classification; label: string }[] = [
  { value: "TruePositive", label: "True positive" },
  { value: "BenignPositive", label: "Benign positive" },
  { value: "FalsePositive", label: "False positive" },
  { value: "Undetermined", label: "Undetermined" },
];

/** Sources whose comments go through the service (the comment paths' sources). */
const COMMENT_SOURCES = ["SourceA", "SourceB", "SourceC", "SourceD", "SourceE", "SourceF"];

/** A length of time as people read it: "2 d 3 h", "4 h 5 min", "12 min". */
export function duration(seconds: number): string {
  const s = Math.abs(seconds);
  const days = Math.floor(s / 86_400);
  const hours = Math.floor((s % 86_400) / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  if (days > 0) return hours > 0 ? `${days} d ${hours} h` : `${days} d`;
  if (hours > 0) return minutes > 0 ? `${hours} h ${minutes} min` : `${hours} h`;
  return `${minutes} min`;
}

const SLA_TONE = { Running: "ok", Paused: "warn", Stopped: "neutral" } as const;

/** The incident's SLA clock: its state, the time counted, the workspace's target, and when it is due or since when breached. */
export function SlaFact({ sla }: { sla: Sla }) {
  return (
    <span class="sla" data-sla-state={sla.state} data-sla-breached={String(sla.breached)}>
      <Badge tone={SLA_TONE[sla.state]}>{sla.state}</Badge> {duration(sla.elapsedSeconds)} counted
      {sla.targetSeconds === null ? ", no target" : ` of ${duration(sla.targetSeconds)}`}
      <br />
      <span class="muted">
        {sla.breached && <Badge tone="bad">Breached</Badge>} <SlaDue sla={sla} />
      </span>
    </span>
  );
}

function SlaDue({ sla }: { sla: Sla }) {
  if (sla.state === "Paused") {
    return (
      <>
        Paused <Time at={sla.pausedSince} />
        {sla.remainingSeconds !== null && sla.remainingSeconds > 0 && `, ${duration(sla.remainingSeconds)} left`}
      </>
    );
  }
  if (sla.state === "Stopped") return <>{sla.targetSeconds === null ? "Stopped" : sla.breached ? "Resolved late" : "Resolved within the target"}</>;
  if (sla.dueAt === null) return <>Running</>;
  return sla.breached ? (
    <>
      since <Time at={sla.dueAt} />
    </>
  ) : (
    <>
      Due <Time at={sla.dueAt} />
    </>
  );
}

/**
 * The incident's actions, for a person with the Analyst or Owner role on its workspace (anyone else
 * reads the page without them): assign, change status, close, comment, link tickets, Trigger webhook.
 * Every write sends the incident's `ETag` as `If-Match`; a change made meanwhile is refused (409) and
 * shown at the form, whose draft stays. After a write the page reads the incident again.
 */
export function IncidentActions(props: { detail: Detail; etag: string | undefined; path: IncidentPath; onChanged(): Promise<void> }) {
  const me = useMe();
  // Which form made the last change: only its note of what it did stays, the others' are out of date.
  const [lastWriter, setLastWriter] = useState<string | undefined>(undefined);
  const role = me.workspaceRoles.find((r) => r.workspaceId.toLowerCase() === props.path.workspaceId.toLowerCase())?.role;
  if (role !== "Owner" && role !== "Analyst") {
    return (
      <p class="muted" data-read-only="true">
        You read this incident; working it needs the Analyst role on its workspace.
      </p>
    );
  }
  const context: ActionContext = {
    ...props,
    lastWriter,
    async write(by, pending) {
      await call(pending);
      setLastWriter(by);
      await props.onChanged();
    },
  };
  const incident = props.detail.incident;
  return (
    <section class="card incident-actions" aria-labelledby="actions-heading" data-incident-actions="true">
      <h2 id="actions-heading">Work this incident</h2>
      <div class="action-grid">
        <AssignForm {...context} />
        <StatusForm {...context} />
        {incident.incident.status === "Closed" ? <ClosedNote incident={incident} /> : <CloseForm {...context} />}
        {COMMENT_SOURCES.includes(props.path.source) ? (
          <CommentForm {...context} />
        ) : (
          <p class="muted">Comments on {props.path.source} incidents are not added through the service.</p>
        )}
      </div>
      <Tickets {...context} />
      <TriggerWebhook {...context} />
    </section>
  );
}

interface ActionContext {
  detail: Detail;
  etag: string | undefined;
  path: IncidentPath;
  onChanged(): Promise<void>;
  /** The form whose change was the last one made here. */
  lastWriter: string | undefined;
  /** Sends a change made by form `by`, then reads the incident again. */
  write(by: string, pending: Promise<{ data?: unknown; error?: unknown; response: Response }>): Promise<void>;
}

/**
 * One action's form: its heading, its problem (a 409 as a SaveProblem with Reload), what it did, its
 * fields, and its submit button (`data-action` its id), which says so while the change is sent.
 */
function ActionForm(props: {
  id: string;
  title: string;
  ctx: ActionContext;
  /** Run by the submit button; its problem shows at the top of the form. */
  action: { problem: Problem | undefined; busy: boolean; run(): Promise<boolean> };
  submit: { label: string; busyLabel: string; danger?: boolean; disabled?: boolean };
  done?: string;
  children: ComponentChildren;
}) {
  const { action, submit } = props;
  return (
    <form
      class="action"
      aria-labelledby={`${props.id}-heading`}
      data-action-form={props.id}
      onSubmit={(e) => {
        e.preventDefault();
        void action.run();
      }}
    >
      <h3 id={`${props.id}-heading`}>{props.title}</h3>
      <SaveProblem problem={action.problem} title={`${props.title}: not done`} onReload={props.ctx.onChanged} />
      {props.done && !action.problem && props.ctx.lastWriter === props.id && <Notice kind="success">{props.done}</Notice>}
      {props.children}
      <div class="buttons">
        <button type="submit" class={submit.danger ? "button button-danger" : "button"} data-action={props.id} disabled={action.busy || submit.disabled}>
          {action.busy ? submit.busyLabel : submit.label}
        </button>
      </div>
    </form>
  );
}

function AssignForm(ctx: ActionContext) {
  const { path } = ctx;
  const assignee = ctx.detail.incident.assignee;
  const people = useResource(async () => (await call(api.GET(`${DETAIL}/assignees`, { params: { path } }))).data, [path.workspaceId]);
  const me = people.value?.find((p) => p.isYou);
  const [chosen, setChosen] = useState("");
  const [email, setEmail] = useState("");
  const [done, setDone] = useState<string | undefined>(undefined);
  const put = (body: { userId: string | null; email: string | null }, said: string) =>
    ctx.write("assign", api.PUT(`${DETAIL}/assignee`, { params: { path, header: csrf() }, body, headers: ifMatch(ctx.etag) })).then(() => setDone(said));
  const assign = useAction(async (to?: Assignee | null) => {
    setDone(undefined);
    if (to === null) return put({ userId: null, email: null }, "Unassigned.");
    const person = to ?? people.value?.find((p) => p.userId === chosen);
    if (person) await put({ userId: person.userId, email: person.email }, `Assigned to ${person.displayName}.`);
    // By address: the service finds the name among the organization's people.
    else await put({ userId: null, email: email.trim() }, `Assigned to ${email.trim()}.`);
    setChosen("");
    setEmail("");
  });
  const mine = me !== undefined && assignee?.userId === me.userId;
  return (
    <ActionForm id="assign" title="Assignee" action={assign} done={done} ctx={ctx} submit={{ label: "Assign", busyLabel: "Assigning…", disabled: chosen === "" && email.trim() === "" }}>
      <p data-assignee={assignee?.email ?? ""}>{assignee ? `Assigned to ${assignee.name ?? assignee.email}` : "Unassigned"}</p>
      <ProblemBanner problem={people.problem} title="Who may be assigned could not be read" />
      <div class="buttons">
        {me && !mine && (
          <button type="button" class="button button-secondary" data-action="assign-me" disabled={assign.busy} onClick={() => void assign.run(me)}>
            Assign to me
          </button>
        )}
        {assignee && (
          <button type="button" class="button button-secondary" data-action="unassign" disabled={assign.busy} onClick={() => void assign.run(null)}>
            Unassign
          </button>
        )}
      </div>
      <Select
        label="Assign to"
        name="userId"
        value={chosen}
        onValue={setChosen}
        options={[{ value: "", label: "Choose a person of this workspace" }, ...(people.value ?? []).map((p) => ({ value: p.userId, label: `${p.displayName} (${p.workspaceRole})` }))]}
      />
      <Field label="Or by e-mail address" name="email" type="email" value={email} onValue={setEmail} problem={assign.problem} autoComplete="off" hint="Someone not listed: the name comes from the organization's people." />
    </ActionForm>
  );
}

/** The status a person most likely wants next: work starts, work pauses, a closed incident reopens. */
function nextStatus(current: Incident["serviceStatus"]): Exclude<Status, "Closed"> {
  return current === "Active" ? "OnHold" : "Active";
}

function StatusForm(ctx: ActionContext) {
  const { path } = ctx;
  const current = ctx.detail.incident.serviceStatus;
  const closed = current === "Closed";
  // A closed incident reopens to a public status; it is put on hold once open again.
  const options = closed ? OPEN_STATUSES.filter((s) => s.value === "New" || s.value === "Active") : OPEN_STATUSES;
  const [status, setStatus] = useState<Exclude<Status, "Closed">>(nextStatus(current));
  useEffect(() => setStatus(nextStatus(current)), [current]);
  const [done, setDone] = useState<string | undefined>(undefined);
  const change = useAction(async () => {
    setDone(undefined);
    await ctx.write("status", api.PUT(`${DETAIL}/status`, { params: { path, header: csrf() }, body: { status }, headers: ifMatch(ctx.etag) }));
    setDone(`${closed ? "Reopened" : "Status"}: ${OPEN_STATUSES.find((s) => s.value === status)!.label}.`);
  });
  return (
    <ActionForm id="status" title={closed ? "Reopen" : "Status"} action={change} done={done} ctx={ctx} submit={{ label: closed ? "Reopen" : "Change status", busyLabel: "Changing…", disabled: status === current }}>
      <p data-service-status={current}>Now: {current}</p>
      <Select label={closed ? "Reopen as" : "New status"} name="status" value={status} onValue={(v) => setStatus(v as Exclude<Status, "Closed">)} options={options} problem={change.problem} />
    </ActionForm>
  );
}

function CloseForm(ctx: ActionContext) {
  const { path } = ctx;
  const [classification, setClassification] = useState<Classification | "">("");
  const [comment, setComment] = useState("");
  const close = useAction(async () => {
    // The classification goes as chosen: the service says when one is missing.
    const body = { status: "Closed", ...(classification ? { classification } : {}), ...(comment.trim() ? { closingComment: comment.trim() } : {}) } as StatusBody;
    await ctx.write("close", api.PUT(`${DETAIL}/status`, { params: { path, header: csrf() }, body, headers: ifMatch(ctx.etag) }));
    setComment("");
    setClassification("");
  });
  return (
    <ActionForm id="close" title="Close" action={close} ctx={ctx} submit={{ label: "Close incident", busyLabel: "Closing…", danger: true }}>
      <Select
        label="Classification"
        name="classification"
        value={classification}
        onValue={(v) => setClassification(v as Classification | "")}
        options={[{ value: "", label: "Choose one" }, ...CLASSIFICATIONS]}
        problem={close.problem}
      />
      <Field label="Closing comment" name="closingComment" multiline maxLength={4000} value={comment} onValue={setComment} problem={close.problem} hint="Optional; it travels with incident.closed.v1." />
    </ActionForm>
  );
}

function ClosedNote({ incident }: { incident: Incident }) {
  const label = CLASSIFICATIONS.find((c) => c.value === incident.classification)?.label ?? incident.classification ?? "no classification";
  return (
    <div class="action">
      <h3>Closed</h3>
      <p data-closed-as={incident.classification ?? ""}>Closed as {label}.</p>
    </div>
  );
}

function CommentForm(ctx: ActionContext) {
  const { path } = ctx;
  const [message, setMessage] = useState("");
  const [done, setDone] = useState<string | undefined>(undefined);
  const add = useAction(async () => {
    setDone(undefined);
    await ctx.write("comment", api.POST(`${DETAIL}/comments`, { params: { path, header: csrf() }, body: { message }, headers: ifMatch(ctx.etag) }));
    setMessage("");
    setDone("Comment added.");
  });
  return (
    <ActionForm id="comment" title="Comment" action={add} done={done} ctx={ctx} submit={{ label: "Add comment", busyLabel: "Adding…" }}>
      <Field label="Your comment" name="message" multiline required maxLength={4000} value={message} onValue={setMessage} problem={add.problem} />
    </ActionForm>
  );
}

/** Linked tickets, where the workspace's ticketing is on: the list, link by number or id, unlink. */
function Tickets(ctx: ActionContext) {
  const { path } = ctx;
  const integrations = useResource(
    async () => (await call(api.GET("/api/v2/portal/workspaces/{workspaceId}/integrations", { params: { path: { workspaceId: path.workspaceId } } }))).data,
    [path.workspaceId],
  );
  const on = integrations.value?.ticketing.inEffect === true;
  if (!on) return null;
  return <TicketList {...ctx} />;
}

function TicketList(ctx: ActionContext) {
  const { path } = ctx;
  const links = useResource(async () => (await call(api.GET(`${DETAIL}/tickets`, { params: { path } }))).data, [path.workspaceId, path.source, path.incidentId]);
  const [by, setBy] = useState<"ticketNumber" | "ticketId">("ticketNumber");
  const [ticket, setTicket] = useState("");
  const [done, setDone] = useState<string | undefined>(undefined);
  const link = useAction(async () => {
    setDone(undefined);
    await ctx.write("link-ticket", api.POST(`${DETAIL}/tickets`, { params: { path, header: csrf() }, body: { [by]: ticket.trim() }, headers: ifMatch(ctx.etag) }));
    await links.reload();
    setDone(`Ticket ${ticket.trim()} linked.`);
    setTicket("");
  });
  const unlink = useAction(async (l: TicketLink) => {
    setDone(undefined);
    await ctx.write("link-ticket", api.DELETE(`${DETAIL}/tickets/{ticketId}`, { params: { path: { ...path, ticketId: l.ticketId }, header: csrf() }, headers: ifMatch(ctx.etag) }));
    await links.reload();
    setDone(`Ticket ${l.ticketNumber} unlinked.`);
  });
  return (
    <section class="tickets" aria-labelledby="tickets-heading">
      <h3 id="tickets-heading">Tickets</h3>
      <ProblemBanner problem={links.problem} title="The linked tickets could not be read" />
      <SaveProblem problem={unlink.problem} title="The ticket was not unlinked" onReload={ctx.onChanged} />
      {links.value && links.value.length === 0 && <Empty>No ticket is linked.</Empty>}
      {links.value && links.value.length > 0 && (
        <ul class="plain ticket-links">
          {links.value.map((l) => (
            <li key={l.id} data-ticket-id={l.ticketId}>
              <a href={l.url} rel="noreferrer" target="_blank">
                {l.ticketNumber}
              </a>{" "}
              <span class="muted">
                {l.ticketSystem} · linked by {l.linkedBy.name} <Time at={l.linkedAt} />
              </span>{" "}
              <button type="button" class="button button-secondary button-small" data-unlink={l.ticketId} disabled={unlink.busy} onClick={() => void unlink.run(l)}>
                Unlink {l.ticketNumber}
              </button>
            </li>
          ))}
        </ul>
      )}
      <ActionForm id="link-ticket" title="Link a ticket" action={link} done={done} ctx={ctx} submit={{ label: "Link ticket", busyLabel: "Linking…" }}>
        <Select
          label="Find the ticket by"
          name="by"
          value={by}
          onValue={(v) => setBy(v as "ticketNumber" | "ticketId")}
          options={[
            { value: "ticketNumber", label: "Its number (SEC-1234, INC0012345)" },
            { value: "ticketId", label: "The ITSM's id" },
          ]}
        />
        <Field label={by === "ticketNumber" ? "Ticket number" : "Ticket id"} name={by} value={ticket} onValue={setTicket} problem={link.problem} required autoComplete="off" />
      </ActionForm>
    </section>
  );
}

/** The Trigger-webhook action: incident.created.v1 for the incident as it is now, to every webhook that receives the workspace's events, or to one. */
function TriggerWebhook(ctx: ActionContext) {
  const { path } = ctx;
  const [open, setOpen] = useState(false);
  const [webhookId, setWebhookId] = useState("");
  const [done, setDone] = useState<string | undefined>(undefined);
  const webhooks = useResource(async () => (open ? (await call(api.GET("/api/v2/portal/webhooks"))).data : []), [open]);
  const trigger = useAction(async () => {
    setDone(undefined);
    const body = webhookId ? { webhookId } : {};
    await ctx.write("trigger", api.POST(`${DETAIL}/trigger`, { params: { path, header: csrf() }, body, headers: ifMatch(ctx.etag) }));
    const name = webhooks.value?.find((w) => w.webhook.id === webhookId)?.webhook.name;
    setDone(`incident.created.v1 sent ${name ? `to ${name}` : "to every webhook that receives this workspace's events"}.`);
  });
  const choices = (webhooks.value ?? []).filter((w) => w.webhook.status !== "Disabled");
  return (
    <details class="trigger" onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>Trigger webhook</summary>
      <ProblemBanner problem={webhooks.problem} title="The webhooks could not be read" />
      <ActionForm id="trigger" title="Send incident.created.v1 now" action={trigger} done={done} ctx={ctx} submit={{ label: "Trigger webhook", busyLabel: "Sending…" }}>
        <p class="hint">Whether or not the webhooks subscribe to incident.created.v1; a webhook that monitors other accounts only does not get it.</p>
        <Select
          label="Send to"
          name="webhookId"
          value={webhookId}
          onValue={setWebhookId}
          problem={trigger.problem}
          options={[{ value: "", label: "Every webhook that receives this workspace's events" }, ...choices.map((w) => ({ value: w.webhook.id, label: `${w.webhook.name} (${w.webhook.status})` }))]}
        />
      </ActionForm>
    </details>
  );
}
