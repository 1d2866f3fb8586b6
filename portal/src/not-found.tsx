import { BASE, Link } from "./router";
import { PageHeader } from "./ui";

export function NotFoundPage() {
  return (
    <section>
      <PageHeader title="Page not found" />
      <p>
        Nothing is here. <Link href={`${BASE}/approvals`}>Go to the approval queue</Link>.
      </p>
    </section>
  );
}
