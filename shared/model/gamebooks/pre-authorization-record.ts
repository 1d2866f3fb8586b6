/*
 * The shape of a standing pre-authorization as the workspace record keeps it, and what a run keeps
 * of the one that let it through: types alone, so that the records that hold them import no
 * operation (pre-authorizations.ts has those).
 */

/** Who recorded or revoked one, and when. */
export interface PreAuthorizationAct {
  at: string;
  byUserId: string;
  byName: string;
}

export interface PreAuthorizationRecord {
  id: string;
  /** The catalogue playbooks it lets through, by their ids in the workspace's catalogue. */
  playbookIds: string[];
  /** When it stops applying (exclusive). */
  endsAt: string;
  /** Why, in the recorder's words. */
  note: string | null;
  created: PreAuthorizationAct;
  revoked: PreAuthorizationAct | null;
}

/** What a run records of the pre-authorization that let it through. */
export interface RunPreAuthorization {
  id: string;
  endsAt: string;
  note: string | null;
  createdBy: { userId: string; name: string };
}
