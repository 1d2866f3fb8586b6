import type { Source } from "../../../model/sources";
import { guidFromWords, mix32, permute32, unpermute32 } from "./seeded-random";
import type { WorkspaceIdentity } from "./entity-pool";

/**
 * Each simulated vendor has its own id style, as real ones do. Every style either carries the
 * incident number or a keyed permutation of the incident's index, so `indexOf` recovers the
 * candidate index from an id in O(1); the caller confirms by regenerating the id and comparing.
 */
export interface IncidentIdSchemeOptions {
  source: Source;
  /** Four words: the Feistel round keys. */
  permutationKey: Uint32Array;
  /** Seeds the random-looking remainder of an id. */
  tailKey: number;
  /** The first incident number of this workspace and source. */
  numberBase: number;
}

export class IncidentIdScheme {
  readonly source: Source;
  readonly numberBase: number;
  private readonly permutationKey: Uint32Array;
  private readonly tailKey: number;

  constructor(options: IncidentIdSchemeOptions) {
    ({ source: this.source, numberBase: this.numberBase, permutationKey: this.permutationKey, tailKey: this.tailKey } = options);
  }

  numberOf(index: number): number {
    return this.numberBase + index;
  }

  idOf(index: number, createdAtMs: number): string {
    const p = permute32(index, this.permutationKey);
    const tail = (k: number) => mix32(this.tailKey, index, k);
    switch (this.source) {
      case "SourceA":
        return guidFromWords(p, tail(1), tail(2), tail(3));
      case "SourceB":
        return `INC-${this.numberOf(index)}`;
      case "SourceC":
        return hex8(p) + [1, 2, 3, 4, 5, 6, 7].map((k) => hex8(tail(k))).join("");
      case "SourceD":
        return `SIR${String(this.numberOf(index)).padStart(7, "0")}`;
      case "SourceE":
        return hex8(Math.floor(createdAtMs / 1000)) + hex8(tail(1)) + hex8(p);
      case "SourceF":
        return `P${p.toString(36).toUpperCase().padStart(7, "0")}${(tail(1) % 36 ** 6).toString(36).toUpperCase().padStart(6, "0")}`;
      case "SourceG":
        return `de_${hex8(p)}${hex8(tail(1))}`;
    }
  }

  /** The index an id would belong to, or undefined when it is not in this vendor's style. */
  indexOf(id: string): number | undefined {
    const fromNumber = (digits: string | undefined) => (digits === undefined ? undefined : Number(digits) - this.numberBase);
    const fromPermuted = (value: number) => (Number.isInteger(value) && value >= 0 && value <= 0xffffffff ? unpermute32(value, this.permutationKey) : undefined);
    let match: RegExpExecArray | null;
    switch (this.source) {
      case "SourceA":
        match = /^([0-9a-f]{8})-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.exec(id);
        return match ? fromPermuted(parseInt(match[1]!, 16)) : undefined;
      case "SourceB":
        return fromNumber(/^INC-(\d{1,12})$/.exec(id)?.[1]);
      case "SourceC":
        match = /^([0-9a-f]{8})[0-9a-f]{56}$/.exec(id);
        return match ? fromPermuted(parseInt(match[1]!, 16)) : undefined;
      case "SourceD":
        return fromNumber(/^SIR(\d{7,12})$/.exec(id)?.[1]);
      case "SourceE":
        match = /^[0-9a-f]{16}([0-9a-f]{8})$/.exec(id);
        return match ? fromPermuted(parseInt(match[1]!, 16)) : undefined;
      case "SourceF":
        match = /^P([0-9A-Z]{7})[0-9A-Z]{6}$/.exec(id);
        return match ? fromPermuted(parseInt(match[1]!, 36)) : undefined;
      case "SourceG":
        match = /^de_([0-9a-f]{8})[0-9a-f]{8}$/.exec(id);
        return match ? fromPermuted(parseInt(match[1]!, 16)) : undefined;
    }
  }

  /**
   * One block per vendor system holding the incident. SourceB mirrors its incidents into SourceA,
   * but only after a sync delay, so a fresh SourceB incident has no SourceA block yet.
   */
  vendorIdentifiers(workspace: WorkspaceIdentity, index: number, id: string, createdAtMs: number, nowMs: number): Record<string, Record<string, string>> {
    const blocks: Record<string, Record<string, string>> = {
      [blockName(this.source)]: {
        incidentId: id,
        incidentNumber: String(this.numberOf(index)),
        incidentUrl: incidentUrl(this.source, workspace, id),
      },
    };
    if (this.source === "SourceB" && nowMs - createdAtMs >= SOURCE_A_SYNC_DELAY_MS) {
      const mirrored = guidFromWords(mix32(this.tailKey, index, 101), mix32(this.tailKey, index, 102), mix32(this.tailKey, index, 103), mix32(this.tailKey, index, 104));
      blocks[blockName("SourceA")] = { incidentId: mirrored, incidentUrl: incidentUrl("SourceA", workspace, mirrored) };
    }
    return blocks;
  }
}

/** How long SourceB takes to mirror a new incident into SourceA. */
export const SOURCE_A_SYNC_DELAY_MS = 10 * 60 * 1000;

function blockName(source: Source): string {
  return source.charAt(0).toLowerCase() + source.slice(1);
}

function incidentUrl(source: Source, workspace: WorkspaceIdentity, id: string): string {
  const host = `console.${source.replace(/^Source/, "source-").toLowerCase()}.example`;
  return `https://${host}/tenants/${workspace.tenantId}/workspaces/${workspace.id}/incidents/${id}`;
}

function hex8(value: number): string {
  return (value >>> 0).toString(16).padStart(8, "0");
}
