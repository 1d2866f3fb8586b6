import type { AccessToken, GetTokenOptions, TokenCredential } from "@azure/identity";

/** What a stub token says, as an Entra token says it: the audience and the tenant it was issued for. */
export interface StubTokenClaims {
  /** The scope asked for, without its "/.default". */
  aud: string;
  /** The tenant asked for; null when the caller named none (the credential's home tenant). */
  tid: string | null;
}

export interface StubCredential extends TokenCredential {
  /** Every token asked for, in order. */
  requests: { scopes: string[]; tenantId?: string }[];
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value), "utf8").toString("base64url");

/**
 * A TokenCredential for adapters driven against a wire server: it issues unsigned JWT-shaped tokens
 * carrying `aud` and `tid`, so that the server can tell, as the real service does from its token,
 * which audience and which tenant a request is for.
 */
export function stubCredential(): StubCredential {
  const requests: StubCredential["requests"] = [];
  return {
    requests,
    async getToken(scopes: string | string[], options?: GetTokenOptions): Promise<AccessToken> {
      const list = [scopes].flat();
      requests.push({ scopes: list, tenantId: options?.tenantId });
      const claims: StubTokenClaims = { aud: (list[0] ?? "").replace(/\/\.default$/, ""), tid: options?.tenantId ?? null };
      return { token: `${b64({ alg: "none", typ: "JWT" })}.${b64(claims)}.`, expiresOnTimestamp: Date.now() + 3_600_000 };
    },
  };
}

/** The claims of an `Authorization: Bearer <stub token>` header; undefined when it is not one. */
export function readBearer(authorization: string | undefined): StubTokenClaims | undefined {
  const match = /^Bearer ([\w-]+)\.([\w-]+)\.$/.exec(authorization ?? "");
  if (!match) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(match[2]!, "base64url").toString("utf8")) as Partial<StubTokenClaims>;
    if (typeof claims.aud !== "string" || (claims.tid !== null && typeof claims.tid !== "string")) return undefined;
    return { aud: claims.aud, tid: claims.tid };
  } catch {
    return undefined;
  }
}
