export interface BasicCredentials {
  clientId: string;
  clientSecret: string;
}

/** Parses `Authorization: Basic base64(clientId:clientSecret)`; undefined when absent or malformed. */
export function parseBasic(header: string | undefined): BasicCredentials | undefined {
  if (!header) return undefined;
  const match = /^Basic[ ]+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon <= 0 || colon === decoded.length - 1) return undefined;
  return { clientId: decoded.slice(0, colon), clientSecret: decoded.slice(colon + 1) };
}
