// The part of `negotiator` (1.x) this service uses. DefinitelyTyped's types describe 0.6, which
// lacks the `preferred` option that breaks ties in the server's favour (br before gzip when a
// browser lists them as equals).
declare module "negotiator" {
  class Negotiator {
    constructor(request: { headers: Record<string, string | string[] | undefined> });
    encoding(available: readonly string[], options?: { preferred?: readonly string[] }): string | undefined;
  }
  export = Negotiator;
}
