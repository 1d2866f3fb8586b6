/**
 * The delivery-log partition of an entry: its webhook and the UTC day of its `createdAt` (DESIGN §3),
 * so a point read needs the createdAt the contract requires, a time-range listing touches only the
 * days in range, and one busy day is not one hot partition for every webhook.
 */
export function deliveryLogPartition(webhookId: string, createdAt: string): string {
  return `${webhookId}:${new Date(createdAt).toISOString().slice(0, 10)}`;
}

/** The partitions a [from, to) range touches, newest day first. */
export function deliveryLogPartitions(webhookId: string, from: string, to: string): string[] {
  const days: string[] = [];
  const first = Date.parse(new Date(from).toISOString().slice(0, 10));
  // `to` is exclusive: a range ending exactly at midnight does not touch that day.
  let day = Date.parse(new Date(Date.parse(to) - 1).toISOString().slice(0, 10));
  for (; day >= first; day -= 86_400_000) days.push(`${webhookId}:${new Date(day).toISOString().slice(0, 10)}`);
  return days;
}
