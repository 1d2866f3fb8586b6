import { Badge, Time } from "../ui";
import { Sla } from "./incident-types";

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

export const SLA_TONE = { Running: "ok", Paused: "warn", Stopped: "neutral" } as const;

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

export function SlaDue({ sla }: { sla: Sla }) {
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
