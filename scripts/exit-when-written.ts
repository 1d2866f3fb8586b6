/**
 * Ends a command once stdout and stderr have taken everything it wrote. A write to a pipe may still be
 * queued when it returns (Node 22 queues a large one), and process.exit() drops what is queued: a
 * dead letter's body shown by `npm run dlq`, piped to a file, would end cut short. Writes to a stream
 * complete in order, so an empty write's callback comes after every earlier one.
 */
export function exitWhenWritten(code: number): void {
  let pending = 2;
  const done = (): void => {
    if (--pending === 0) process.exit(code);
  };
  process.stdout.write("", done);
  process.stderr.write("", done);
}
