import { useState } from "preact/hooks";
import { api, call, type Problem } from "../api/client";
import type { paths } from "../api/openapi";
import { ProblemBanner, Select, useResource } from "../ui";

const BASE = "/api/v2/portal/azure-resources/subscriptions";
type InstanceList = paths[`${typeof BASE}/{subscriptionId}/resource-groups/{resourceGroup}/sentinels`]["get"]["responses"][200]["content"]["application/json"];
export type SecurityInstance = InstanceList["data"][number];
type InstanceCheck = paths[`${typeof BASE}/{subscriptionId}/resource-groups/{resourceGroup}/workspaces/{workspaceName}/validate`]["get"]["responses"][200]["content"]["application/json"]["data"];

/** A security instance as picked: where it is, and what the lookups say of it. */
export interface PickedInstance {
  subscriptionId: string;
  resourceGroup: string;
  instance: SecurityInstance;
}

/** The reference the onboarding body and the check take. */
export function instanceRef(p: PickedInstance) {
  return { subscriptionId: p.subscriptionId, resourceGroup: p.resourceGroup, workspaceName: p.instance.name };
}

/** The check before onboarding: whether the instance can become a workspace now, and if not why. */
export async function checkInstance(p: PickedInstance): Promise<InstanceCheck> {
  const path = instanceRef(p);
  return (await call(api.GET(`${BASE}/{subscriptionId}/resource-groups/{resourceGroup}/workspaces/{workspaceName}/validate`, { params: { path } }))).data;
}

/** A lookup's options: a first entry that says what to do (or that it is loading), then the items. */
function options<T>(items: T[] | undefined, loading: boolean, prompt: string, none: string, option: (item: T) => { value: string; label: string }) {
  if (loading) return [{ value: "", label: "Loading…" }];
  if (items === undefined) return [{ value: "", label: prompt }];
  return [{ value: "", label: items.length === 0 ? none : prompt }, ...items.map(option)];
}

/**
 * Subscription, then resource group, then security instance, each a select filled from the portal's
 * cloud lookups once the one before is chosen, as the cloud's own onboarding pickers go. Each shows
 * that it loads, and the lookup's problem with a retry; `problem` is the onboarding's, shown at the
 * field of the instance it names.
 */
export function SecurityInstancePicker(props: { picked: PickedInstance | undefined; onPick(picked: PickedInstance | undefined): void; problem: Problem | undefined }) {
  const [subscriptionId, setSubscriptionId] = useState(props.picked?.subscriptionId ?? "");
  const [resourceGroup, setResourceGroup] = useState(props.picked?.resourceGroup ?? "");
  const subscriptions = useResource(async () => (await call(api.GET(BASE))).data, []);
  const groups = useResource(
    async () => (subscriptionId ? (await call(api.GET(`${BASE}/{subscriptionId}/resource-groups`, { params: { path: { subscriptionId } } }))).data : undefined),
    [subscriptionId],
  );
  const instances = useResource(
    async () =>
      subscriptionId && resourceGroup
        ? (await call(api.GET(`${BASE}/{subscriptionId}/resource-groups/{resourceGroup}/sentinels`, { params: { path: { subscriptionId, resourceGroup } } }))).data
        : undefined,
    [subscriptionId, resourceGroup],
  );
  const lookupProblem = subscriptions.problem ?? groups.problem ?? instances.problem;
  const retry = () => void (subscriptions.problem ? subscriptions.reload() : groups.problem ? groups.reload() : instances.reload());
  const chosen = props.picked?.instance;

  return (
    <fieldset class="instance-picker">
      <legend>Security instance</legend>
      <p class="hint">The Log Analytics workspace with the security solution onboarded that the workspace reads. Its workspace id becomes the workspace's id.</p>
      {lookupProblem && (
        <div>
          <ProblemBanner problem={lookupProblem} title="The cloud lookup failed" />
          <button type="button" class="button button-secondary" onClick={retry}>
            Try again
          </button>
        </div>
      )}
      <Select
        label="Subscription"
        name="securityInstance.subscriptionId"
        value={subscriptionId}
        busy={subscriptions.loading}
        problem={props.problem}
        options={options(subscriptions.value, subscriptions.loading, "Choose a subscription", "No subscription of your organization", (s) => ({ value: s.id, label: s.displayName }))}
        onValue={(id) => {
          setSubscriptionId(id);
          setResourceGroup("");
          props.onPick(undefined);
        }}
      />
      <Select
        label="Resource group"
        name="securityInstance.resourceGroup"
        value={resourceGroup}
        disabled={!subscriptionId}
        busy={groups.loading && !!subscriptionId}
        problem={props.problem}
        options={options(groups.value, groups.loading && !!subscriptionId, subscriptionId ? "Choose a resource group" : "Choose a subscription first", "The subscription has no resource group", (g) => ({
          value: g.name,
          label: `${g.name} (${g.location})`,
        }))}
        onValue={(name) => {
          setResourceGroup(name);
          props.onPick(undefined);
        }}
      />
      <Select
        label="Security instance"
        name="securityInstance.workspaceName"
        value={chosen?.name ?? ""}
        disabled={!resourceGroup}
        busy={instances.loading && !!resourceGroup}
        problem={props.problem}
        hint={instances.value?.length === 0 ? "No workspace of this resource group has the security solution onboarded." : undefined}
        options={options(instances.value, instances.loading && !!resourceGroup, resourceGroup ? "Choose a security instance" : "Choose a resource group first", "No security instance here", (i) => ({
          value: i.name,
          label: `${i.name} (${i.location})`,
        }))}
        onValue={(name) => {
          const instance = instances.value?.find((i) => i.name === name);
          props.onPick(instance && { subscriptionId, resourceGroup, instance });
        }}
      />
      {chosen && (
        <p class="muted" data-instance-id={chosen.id}>
          Workspace id: <code>{chosen.id}</code>
        </p>
      )}
    </fieldset>
  );
}
