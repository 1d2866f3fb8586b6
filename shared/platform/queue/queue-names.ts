/**
 * The service's queues. Constants, not settings: a Functions trigger names its queue when the module
 * is loaded, before any configuration is read, and the Bicep templates must create the same names.
 */
export const queueNames = {
  /** Domain events from the outbox, fanned out to webhook deliveries. */
  events: "events",
  /** One message per webhook delivery attempt; retries are scheduled onto it. */
  deliveries: "deliveries",
  /** One message per batch of workspaces per reconciler pass: the pass scales out with the queue. */
  reconcile: "reconcile",
  /** One message per playbook of a dispatched gamebook run: the executor carries it out (and resumes it after a crash). */
  gamebookRuns: "gamebook-runs",
} as const;

export type QueueName = (typeof queueNames)[keyof typeof queueNames];

/**
 * How many times a queue delivers a message before dead-lettering it: the Bicep sets it on every queue
 * (`maxDeliveryCount`) and the in-process queue uses it too. A handler that can still record an
 * outcome on the last delivery (the gamebook executor) reads it to know that one is the last.
 */
export const MAX_DELIVERY_COUNT = 10;
