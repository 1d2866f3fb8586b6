import { useState } from "preact/hooks";
import { api, call, csrf } from "../api/client";
import { ifMatch } from "../etag";
import { Empty, Field, ProblemBanner, SaveProblem, Select, Time, useAction, useResource } from "../ui";
import { DETAIL, TicketLink } from "./incident-types";
import { type ActionContext, ActionForm } from "./action-form";

/** Linked tickets, where the workspace's ticketing is on: the list, link by number or id, unlink. */
export function Tickets(ctx: ActionContext) {
  const { path } = ctx;
  const integrations = useResource(
    async () => (await call(api.GET("/api/v2/portal/workspaces/{workspaceId}/integrations", { params: { path: { workspaceId: path.workspaceId } } }))).data,
    [path.workspaceId],
  );
  const on = integrations.value?.ticketing.inEffect === true;
  if (!on) return null;
  return <TicketList {...ctx} />;
}

export function TicketList(ctx: ActionContext) {
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
export function TriggerWebhook(ctx: ActionContext) {
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
