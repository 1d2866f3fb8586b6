import { useRef, useState } from "preact/hooks";
import { api, call, csrf, type Problem } from "../api/client";
import type { paths } from "../api/openapi";
import { asProblem, useAction, useResource, type Action, type Resource } from "../ui";

type SearchOperation = paths["/api/v2/portal/incidents/search"]["post"];
export type SearchBody = SearchOperation["requestBody"]["content"]["application/json"];
type SearchEnvelope = SearchOperation["responses"][200]["content"]["application/json"];
type Answer = SearchEnvelope["data"];
export type Unavailable = SearchEnvelope["meta"]["unavailable"][number];
export type IncidentSummary = Answer["incidents"][number];
/** The queue's filters and order: everything of a search but where it stands. */
export type QueueQuery = Omit<SearchBody, "pageToken">;

/** Incidents a page of the queue holds (the route's page size). */
export const QUEUE_PAGE_SIZE = 50;
/**
 * Calls one page may make after its first while workspace sources are still unread: the first page
 * of a thousand workspaces reads seven thousand streams, a few hundred a call. Past this the page
 * shows what it has, and "Show more" reads on.
 */
const MAX_FOLLOW_UPS = 20;

const search = (body: SearchBody) => call(api.POST("/api/v2/portal/incidents/search", { params: { header: csrf() }, body }));

const unavailableKey = (u: Unavailable) => `${u.workspaceId}/${u.source ?? ""}`;

/** What the list knows of the workspaces (and sources) it could not read: the latest word on each. */
function mergeUnavailable(known: Map<string, Unavailable>, reported: Unavailable[], fresh: boolean): Map<string, Unavailable> {
  const next = new Map(fresh ? [] : known);
  // A stream read since drops out; one reported again replaces what was known of it. A stream given
  // up is not read again, so its entry stays.
  for (const [key, u] of next) if (!u.gaveUp && !reported.some((r) => unavailableKey(r) === key)) next.delete(key);
  for (const u of reported) next.set(unavailableKey(u), u);
  return next;
}

export interface IncidentQueue {
  /** The first page, read again whenever `key` changes (or on `reload`). */
  first: Resource<void>;
  /** "Show more": the next page, with the token of the last answer. */
  next: Action;
  /**
   * Whether a new list is being read: from the moment the filters change (before the read has even
   * started, so the list shown, of the filters before, is never taken for theirs) until its first
   * page is read or has failed.
   */
  loading: boolean;
  incidents: IncidentSummary[];
  /** Whether the queue may hold more after what is shown. */
  more: boolean;
  /** The workspaces and sources that could not be read, by `workspaceId/source`. */
  unavailable: Map<string, Unavailable>;
  /** While a page asks again for streams still unread: how many the last answer left; 0 otherwise. */
  reading: number;
  /** Streams the last answer left unread (more than 0 only when a page stopped asking before they were read). */
  unreadStreams: number;
  /**
   * Why the first page stopped before it was read whole: a follow-up call failed. What came before it
   * is shown, and "Show more" goes on from there. (A first call that fails is `first.problem`; a
   * "Show more" that fails is `next.problem`.)
   */
  stalled: Problem | undefined;
}

/**
 * The incident queue, a page at a time in one order across every workspace and source. A page is
 * read until it holds a page's worth of incidents or every stream has been read once: the first call
 * of a large organization may answer nothing certain yet, only how many streams are left, and an
 * empty list that is merely not read yet would read as "nothing matches". `onFresh` is called when a
 * new list starts (other filters, or read again after a change).
 */
export function useIncidentQueue(query: QueueQuery, key: string, onFresh: () => void): IncidentQueue {
  const [incidents, setIncidents] = useState<IncidentSummary[]>([]);
  const [token, setToken] = useState<string | null>(null);
  const [more, setMore] = useState(false);
  const [unavailable, setUnavailable] = useState<Map<string, Unavailable>>(new Map());
  const [reading, setReading] = useState(0);
  const [unreadStreams, setUnreadStreams] = useState(0);
  const [stalled, setStalled] = useState<Problem | undefined>(undefined);
  // The filters (`key`) of the list last started.
  const [startedKey, setStartedKey] = useState<string | undefined>(undefined);
  // Each new list is a generation: answers of an older one (filters changed while it was being read) are dropped.
  const generation = useRef(0);

  const readPage = async (pageToken: string | null) => {
    const fresh = pageToken === null;
    const mine = fresh ? ++generation.current : generation.current;
    const current = () => mine === generation.current;
    if (fresh) setStartedKey(key);
    setStalled(undefined);
    let at = pageToken;
    let got = 0;
    try {
      for (let calls = 0; ; calls++) {
        const startsList = fresh && calls === 0;
        let envelope: SearchEnvelope;
        try {
          envelope = await search(at === null ? query : { ...query, pageToken: at });
        } catch (error) {
          // A first call that fails leaves nothing to show: the page's problem. A follow-up leaves what came before it.
          if (startsList || !fresh) throw error;
          if (current()) setStalled(asProblem(error));
          return;
        }
        if (!current()) return;
        const { data: answer, meta } = envelope;
        setIncidents((shown) => (startsList ? answer.incidents : [...shown, ...answer.incidents]));
        if (startsList) onFresh();
        setUnavailable((known) => mergeUnavailable(known, meta.unavailable, startsList));
        setToken(answer.nextPageToken);
        setMore(answer.moreIncidentsAvailable);
        setUnreadStreams(answer.unreadStreams);
        at = answer.nextPageToken;
        got += answer.incidents.length;
        const askAgain = answer.unreadStreams > 0 && at !== null && got < QUEUE_PAGE_SIZE && calls < MAX_FOLLOW_UPS;
        setReading(askAgain ? answer.unreadStreams : 0);
        if (!askAgain) return;
      }
    } finally {
      if (current()) setReading(0);
    }
  };

  const first = useResource(() => readPage(null), [key]);
  const next = useAction(async () => {
    if (token !== null) await readPage(token);
  });
  return { first, next, loading: first.loading || startedKey !== key, incidents, more, unavailable, reading, unreadStreams, stalled };
}
