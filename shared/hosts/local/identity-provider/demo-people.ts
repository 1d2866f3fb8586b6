/**
 * The people of the local identity provider: who can sign in to the portal on the local host and in
 * tests. Only their identity as a directory knows it; the service's user store registers them (or,
 * for one of them, does not).
 *
 * The ids are literals, not derived from DEMO_SEED: a directory's object ids do not change with the
 * service's demo data. They equal the demo organization's user ids for the default seed
 * (`demoId("secops-demo", "user/<key>")`) and the provider account's tenant, as
 * test/integration/local-identity-provider.test.ts checks.
 */

export interface DemoPerson {
  /** A short name for tests and scripts; the demo data's user key (`user/<key>`). */
  key: string;
  /** The directory object id: the account id at the provider and the ID token's `oid` (and `sub`). */
  oid: string;
  /** The directory (tenant) id: the ID token's `tid`. */
  tid: string;
  name: string;
  email: string;
  /** Signs in with multi-factor authentication: `amr` is `["pwd", "mfa"]`, else `["pwd"]`. */
  mfa: boolean;
  /** What the person is there to show, for the sign-in page. */
  description: string;
}

/** Contoso Managed Security's directory, the demo service provider's tenant. */
export const DEMO_TENANT_ID = "2a8cc883-0968-8486-8b92-4569ed8ff8c8";

/** Northwind Health's directory, a demo customer's tenant. */
export const NORTHWIND_TENANT_ID = "d5e64f55-e66b-8a95-90ba-071c1d5a77e7";

export const DEMO_PEOPLE: readonly DemoPerson[] = [
  {
    key: "amira",
    oid: "67ff43b5-98aa-8eab-8ef8-ac664bac3ae2",
    tid: DEMO_TENANT_ID,
    name: "Amira Haddad",
    email: "amira.haddad@contoso-mssp.example",
    mfa: true,
    description: "Administrator of the service provider. Signs in with MFA.",
  },
  {
    key: "jonas",
    oid: "d58bcce7-2e4a-8a4a-95e4-42bca0a0bc6b",
    tid: DEMO_TENANT_ID,
    name: "Jonas Becker",
    email: "jonas.becker@contoso-mssp.example",
    mfa: true,
    description: "SOC lead, owner of workspaces. Signs in with MFA.",
  },
  {
    key: "li",
    oid: "6ca1b3c2-1cfb-8ec6-8d44-18ffea2b84aa",
    tid: DEMO_TENANT_ID,
    name: "Li Wei",
    email: "li.wei@contoso-mssp.example",
    mfa: true,
    description: "SOC analyst. Signs in with MFA.",
  },
  {
    key: "sam",
    oid: "51bc1425-c21f-8ede-be91-e3c07007ba78",
    tid: DEMO_TENANT_ID,
    name: "Sam Okafor",
    email: "sam.okafor@contoso-mssp.example",
    mfa: false,
    description: "Registered analyst who signs in with a password only (no MFA): the service refuses the session.",
  },
  {
    key: "priya",
    oid: "7305598b-7b08-8479-bbfa-9ea38b406e05",
    tid: NORTHWIND_TENANT_ID,
    name: "Priya Natarajan",
    email: "priya.natarajan@northwind.example",
    mfa: true,
    description: "Northwind Health's security lead, Owner of its workspaces: the customer's side of an approval. Signs in with MFA.",
  },
  {
    key: "oliver",
    oid: "de483e2f-109a-8160-bd57-d0a54a97ede3",
    tid: DEMO_TENANT_ID,
    name: "Oliver Grant",
    email: "oliver.grant@contoso-mssp.example",
    mfa: true,
    description: "In the directory but not registered in the service: signs in with MFA and is refused.",
  },
];

/** The demo person of a key; throws for a key that is not one. */
export function demoPerson(key: string): DemoPerson {
  const person = DEMO_PEOPLE.find((p) => p.key === key);
  if (!person) throw new Error(`No demo person "${key}"; the keys are ${DEMO_PEOPLE.map((p) => p.key).join(", ")}.`);
  return person;
}
