/**
 * A JSON body as the tests read it: loosely typed, since each test checks the fields it needs and the
 * served OpenAPI document (test/support/openapi-check.ts) checks the shape of every answer.
 */
export type Json = Record<string, any>;

/**
 * A response's JSON body, read from a clone: the response itself stays unread, so a test may read
 * it again (its text, or `json` once more) after looking at the body.
 */
export async function json(res: Response): Promise<Json> {
  return (await res.clone().json()) as Json;
}
