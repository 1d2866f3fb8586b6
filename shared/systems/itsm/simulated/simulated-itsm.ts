import { ApiError, notFound } from "../../../platform/errors/api-error";
import { hashString32, Rng } from "../../vendors/simulated/seeded-random";
import {
  checkTicketSearch,
  ticketingNotEnabled,
  type NewTicketNote,
  type Ticket,
  type TicketingSystem,
  type TicketNote,
  type TicketPriority,
  type TicketState,
} from "../port";

export interface SimulatedItsmOptions {
  /** Same seed, same workspaces and same start time give the same tickets. */
  seed: string;
  workspaces: readonly { id: string; name: string }[];
  /** Workspaces that start without ticketing (the console can enable them). */
  disabledWorkspaceIds?: readonly string[];
  /** Seeded tickets per workspace; default 40. */
  ticketsPerWorkspace?: number;
  now: () => Date;
}

/** Acting "inside the ITSM", as a resolver team would, for local controls and tests. */
export interface ItsmConsole {
  /** A ticket raised in the ITSM now. */
  createTicket(workspaceId: string, input: { title: string; priority: TicketPriority; groupingIds?: readonly string[] }): Ticket;
  /** A note written in the ITSM (it reaches linked incidents as a comment carrying ticketId and ticketNoteId). */
  addNote(workspaceId: string, ticketId: string, note: NewTicketNote): TicketNote;
  setEnabled(workspaceId: string, enabled: boolean): void;
}

export interface SimulatedItsm {
  system: TicketingSystem;
  console: ItsmConsole;
}

type Flavour = "ServiceNow" | "Jira";

interface WorkspaceDesk {
  flavour: Flavour;
  host: string;
  tickets: Map<string, Ticket>;
  notes: Map<string, TicketNote[]>;
  nextNumber: number;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * The embedded ITSM: one desk per workspace, ServiceNow-style (INC0012345, sys_id, work notes) or
 * Jira Service Management-style (SEC-1234) — the two workspaces of one customer share their
 * customer's desk style. Seeded on first use of a workspace, so a thousand benchmark workspaces cost
 * nothing until asked for.
 */
export function createSimulatedItsm(options: SimulatedItsmOptions): SimulatedItsm {
  const seedTime = options.now().getTime();
  const perWorkspace = Math.max(0, Math.floor(options.ticketsPerWorkspace ?? 40));
  const names = new Map(options.workspaces.map((w) => [w.id, w.name]));
  const disabled = new Set(options.disabledWorkspaceIds ?? []);
  const desks = new Map<string, WorkspaceDesk>();
  const stamp = () => options.now().toISOString();

  function desk(workspaceId: string): WorkspaceDesk {
    if (!names.has(workspaceId) || disabled.has(workspaceId)) throw ticketingNotEnabled(workspaceId);
    let existing = desks.get(workspaceId);
    if (!existing) {
      existing = seedDesk(options.seed, workspaceId, names.get(workspaceId)!, perWorkspace, seedTime);
      desks.set(workspaceId, existing);
    }
    return existing;
  }

  function ticketOf(d: WorkspaceDesk, ticketId: string): Ticket {
    const ticket = d.tickets.get(ticketId);
    if (!ticket) throw notFound(`Ticket ${ticketId}`, "ticketId");
    return ticket;
  }

  function appendNote(d: WorkspaceDesk, ticket: Ticket, note: NewTicketNote): TicketNote {
    const notes = d.notes.get(ticket.ticketId) ?? [];
    const stored: TicketNote = {
      id: noteId(d.flavour, options.seed, ticket.ticketId, notes.length),
      ticketId: ticket.ticketId,
      kind: note.kind,
      body: note.body,
      authorName: note.authorName,
      authorEmail: note.authorEmail,
      createdAt: stamp(),
    };
    d.notes.set(ticket.ticketId, [...notes, stored]);
    d.tickets.set(ticket.ticketId, { ...ticket, updatedAt: stored.createdAt });
    return { ...stored };
  }

  const system: TicketingSystem = {
    isEnabled: (workspaceId) => names.has(workspaceId) && !disabled.has(workspaceId),

    async searchTickets(query, signal) {
      checkTicketSearch(query);
      throwIfCallerGone(signal);
      const d = desk(query.workspaceId);
      const number = query.ticketNumber?.toLowerCase();
      return [...d.tickets.values()]
        .filter((t) => query.groupingId === undefined || t.groupingIds.includes(query.groupingId))
        .filter((t) => number === undefined || t.ticketNumber.toLowerCase() === number)
        .sort((a, b) => (a.updatedAt === b.updatedAt ? (a.ticketId < b.ticketId ? -1 : 1) : a.updatedAt < b.updatedAt ? 1 : -1))
        .slice(0, query.limit)
        .map(copyTicket);
    },

    async getTicket(workspaceId, ticketId, signal) {
      throwIfCallerGone(signal);
      return copyTicket(ticketOf(desk(workspaceId), ticketId));
    },

    async setPriority(workspaceId, ticketId, priority, signal) {
      throwIfCallerGone(signal);
      const d = desk(workspaceId);
      const updated = { ...ticketOf(d, ticketId), priority, updatedAt: stamp() };
      d.tickets.set(ticketId, updated);
      return copyTicket(updated);
    },

    async listNotes(workspaceId, ticketId, signal) {
      throwIfCallerGone(signal);
      const d = desk(workspaceId);
      ticketOf(d, ticketId);
      return (d.notes.get(ticketId) ?? []).map((n) => ({ ...n }));
    },

    async addNote(workspaceId, ticketId, note, signal) {
      throwIfCallerGone(signal);
      const d = desk(workspaceId);
      return appendNote(d, ticketOf(d, ticketId), note);
    },
  };

  const console: ItsmConsole = {
    createTicket(workspaceId, input) {
      const d = desk(workspaceId);
      const at = stamp();
      const ticket: Ticket = {
        ...identity(d, options.seed, d.nextNumber++),
        title: input.title,
        status: d.flavour === "ServiceNow" ? "New" : "Open",
        state: "Open",
        priority: input.priority,
        groupingIds: [...(input.groupingIds ?? [])],
        assignmentGroup: "SOC Tier 2",
        assignee: null,
        createdAt: at,
        updatedAt: at,
      };
      d.tickets.set(ticket.ticketId, ticket);
      return copyTicket(ticket);
    },
    addNote(workspaceId, ticketId, note) {
      const d = desk(workspaceId);
      return appendNote(d, ticketOf(d, ticketId), note);
    },
    setEnabled(workspaceId, enabled) {
      if (!names.has(workspaceId)) throw notFound(`Workspace ${workspaceId}`, "workspaceId");
      if (enabled) disabled.delete(workspaceId);
      else disabled.add(workspaceId);
    },
  };

  return { system, console };
}

/** A caller that has gone away gets UPSTREAM_ERROR and changes nothing, as over the ticketing bridge. */
function throwIfCallerGone(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw new ApiError("UPSTREAM_ERROR", "Request aborted: the caller went away while waiting for the ITSM.", { cause: signal.reason });
  }
}

function copyTicket(ticket: Ticket): Ticket {
  return { ...ticket, groupingIds: [...ticket.groupingIds] };
}

const titles = [
  "Security incident: impossible travel for {user}",
  "Phishing report: invoice lure delivered to {user}",
  "Malware detected on {host}",
  "Brute-force attempts against the VPN gateway",
  "Suspicious inbox forwarding rule created by {user}",
  "Shadow copy deletion on {host} (possible ransomware precursor)",
  "Password spray from 203.0.113.{n}",
  "Unusual volume of file downloads from SharePoint by {user}",
  "Disable compromised account {user}",
  "Block outbound traffic to 198.51.100.{n}",
  "Reimage {host} after confirmed infection",
  "MFA fatigue: repeated push denials for {user}",
] as const;

const groups = ["SOC Tier 2", "Service Desk", "Identity & Access", "Endpoint Engineering", "Network Operations"] as const;
const resolvers = ["Dana Whitfield", "Rahul Mehta", "Sofia Lindqvist", "Kwame Asante", "Elena Petrova"] as const;
const people = ["a.jensen", "m.okafor", "l.moreau", "k.tanaka", "r.alvarez", "s.novak"] as const;
const hosts = ["WKS-FIN-0142", "LT-HR-0077", "SRV-FILE-02", "WKS-OPS-0311", "SRV-SQL-05"] as const;

const noteTemplates: readonly (readonly [TicketNote["kind"], string])[] = [
  ["WorkNote", "Triage started. Correlated with the SOC incident; scope limited to one user so far."],
  ["WorkNote", "Host isolated through EDR; awaiting forensic image before reimage."],
  ["Comment", "User confirms they did not sign in from that location. Password reset requested."],
  ["WorkNote", "Sender domain blocked at the mail gateway; 14 copies purged from mailboxes."],
  ["Comment", "Change approved for the firewall rule; implementation window tonight 22:00 UTC."],
  ["WorkNote", "No further suspicious activity in the last 24 hours. Proposing to resolve."],
];

const serviceNowStatus: Readonly<Record<TicketState, string>> = {
  Open: "New",
  InProgress: "In Progress",
  OnHold: "On Hold",
  Resolved: "Resolved",
  Closed: "Closed",
  Cancelled: "Canceled",
};
const jiraStatus: Readonly<Record<TicketState, string>> = {
  Open: "Open",
  InProgress: "In Progress",
  OnHold: "Waiting for customer",
  Resolved: "Resolved",
  Closed: "Closed",
  Cancelled: "Canceled",
};

function seedDesk(seed: string, workspaceId: string, workspaceName: string, count: number, seedTime: number): WorkspaceDesk {
  const customer = workspaceName.split("-")[0] || "soc";
  const flavour: Flavour = hashString32(`${seed}/itsm/${customer}`) % 2 === 0 ? "ServiceNow" : "Jira";
  const host = flavour === "ServiceNow" ? `${customer}.service-now.example` : `${customer}.atlassian.example`;
  const rng = new Rng(hashString32(`${seed}/itsm/${workspaceId}`));
  const d: WorkspaceDesk = { flavour, host, tickets: new Map(), notes: new Map(), nextNumber: 0 };
  d.nextNumber = flavour === "ServiceNow" ? 10_000 + rng.int(40_000) : 1000 + rng.int(3000);
  const domain = `${customer}.example`;
  let grouping = "";
  for (let i = 0; i < count; i++) {
    const created = seedTime - Math.round((count - i) * ((30 * DAY) / Math.max(1, count))) - rng.int(HOUR);
    const updated = Math.min(seedTime - 60_000, created + rng.between(1, 72) * HOUR);
    const state: TicketState = rng.pick<TicketState>(["Open", "InProgress", "InProgress", "OnHold", "Resolved", "Closed", "Closed", "Cancelled"]);
    // Most tickets carry their own case id; every fourth joins the previous case (one case, two tickets).
    if (i % 4 !== 3 || grouping === "") grouping = `case-${rng.hex(8)}`;
    const title = rng
      .pick(titles)
      .replace("{user}", `${rng.pick(people)}@${domain}`)
      .replace("{host}", rng.pick(hosts))
      .replace("{n}", String(rng.between(2, 254)));
    const ticket: Ticket = {
      ...identity(d, seed, d.nextNumber++),
      title,
      status: (flavour === "ServiceNow" ? serviceNowStatus : jiraStatus)[state],
      state,
      priority: rng.pick<TicketPriority>(["P1", "P2", "P2", "P3", "P3", "P3", "P4", "P5"]),
      groupingIds: [grouping],
      assignmentGroup: rng.pick(groups),
      assignee: state === "Open" ? null : rng.pick(resolvers),
      createdAt: new Date(created).toISOString(),
      updatedAt: new Date(updated).toISOString(),
    };
    d.tickets.set(ticket.ticketId, ticket);
    const noteCount = rng.int(4);
    const notes: TicketNote[] = [];
    for (let n = 0; n < noteCount; n++) {
      const [kind, body] = rng.pick(noteTemplates);
      const author = rng.pick(resolvers);
      notes.push({
        id: noteId(flavour, seed, ticket.ticketId, n),
        ticketId: ticket.ticketId,
        kind,
        body,
        authorName: author,
        authorEmail: `${author.toLowerCase().replace(/[^a-z]+/g, ".")}@${domain}`,
        createdAt: new Date(created + ((n + 1) * (updated - created)) / (noteCount + 1)).toISOString(),
      });
    }
    if (notes.length > 0) d.notes.set(ticket.ticketId, notes);
  }
  return d;
}

/** The ITSM's id, number and URL for the n-th ticket of a desk, in that ITSM's own formats. */
function identity(d: WorkspaceDesk, seed: string, n: number): Pick<Ticket, "system" | "ticketId" | "ticketNumber" | "url"> {
  if (d.flavour === "ServiceNow") {
    const sysId = new Rng(hashString32(`${seed}/${d.host}/${n}`)).hex(32);
    return {
      system: "ServiceNow",
      ticketId: sysId,
      ticketNumber: `INC${String(n).padStart(7, "0")}`,
      url: `https://${d.host}/nav_to.do?uri=incident.do%3Fsys_id%3D${sysId}`,
    };
  }
  const key = `SEC-${n}`;
  return { system: "Jira Service Management", ticketId: String(10_000 + n), ticketNumber: key, url: `https://${d.host}/browse/${key}` };
}

function noteId(flavour: Flavour, seed: string, ticketId: string, n: number): string {
  // Jira comment ids are numeric; the ticket's own id times 1000 keeps them unique per desk.
  return flavour === "ServiceNow" ? new Rng(hashString32(`${seed}/note/${ticketId}/${n}`)).hex(32) : String(Number(ticketId) * 1000 + n);
}
