import type { Authenticator } from "./auth/authenticator";
import type { People } from "./auth/people";
import type { Config } from "./config/config";
import type { RateLimiter } from "./http/rate-limit";
import type { Logger } from "./logger";
import type { Stores } from "./store/ports";
import type { SecretBox } from "./delivery/secret-box";

/**
 * The part of the services record the platform's own code reads: what the request pipeline uses to
 * admit, authenticate, rate-limit, find the workspace, answer `Idempotency-Key` and log. The full
 * record a handler receives (`Services`, with the systems' ports and the reconciler) is the domain's
 * (`domain/services.ts`); the pipeline hands it on without naming it.
 */
export interface PlatformServices {
  config: Config;
  now: () => Date;
  logger: Logger;
  stores: Stores;
  auth: Authenticator;
  /** People signed in to the portal: their sessions, and who they are in the service. */
  people: People;
  rateLimiter: RateLimiter;
  secretBox: SecretBox;
}
