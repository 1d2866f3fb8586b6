import { inProcessDeadLetters } from "../../shared/platform/queue/dead-letters";
import { InProcessQueue } from "../../shared/platform/queue/in-process/in-process-queue";
import { describeQueueContract, type Body } from "./queue-contract";

describeQueueContract("in-process", async ({ maxDeliveryCount, lockDurationMs, maxConcurrentCalls }) => {
  const queue = new InProcessQueue<Body>({ name: "events", maxDeliveryCount, lockDurationMs, maxConcurrentCalls });
  return {
    queue,
    subscribe: (handler) => queue.subscribe(handler),
    pending: async () => {
      const { ready, inFlight, scheduled } = queue.stats();
      return ready + inFlight + scheduled;
    },
    deadLetters: inProcessDeadLetters([queue as InProcessQueue<unknown>]),
    teardown: () => queue.close(),
  };
});
