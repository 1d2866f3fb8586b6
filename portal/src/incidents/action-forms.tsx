import { useEffect, useState } from "preact/hooks";
import { api, call, csrf } from "../api/client";
import { ifMatch } from "../etag";
import { Field, ProblemBanner, Select, useAction, useResource } from "../ui";
import { DETAIL, Incident, StatusBody, Status, Classification, Assignee, OPEN_STATUSES, CLASSIFICATIONS } from "./incident-types";
import { type ActionContext, ActionForm } from "./action-form";

export function AssignForm(ctx: ActionContext) {
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
export function nextStatus(current: Incident["serviceStatus"]): Exclude<Status, "Closed"> {
  return current === "Active" ? "OnHold" : "Active";
}

export function StatusForm(ctx: ActionContext) {
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

export function CloseForm(ctx: ActionContext) {
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

export function ClosedNote({ incident }: { incident: Incident }) {
  const label = CLASSIFICATIONS.find((c) => c.value === incident.classification)?.label ?? incident.classification ?? "no classification";
  return (
    <div class="action">
      <h3>Closed</h3>
      <p data-closed-as={incident.classification ?? ""}>Closed as {label}.</p>
    </div>
  );
}

export function CommentForm(ctx: ActionContext) {
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

