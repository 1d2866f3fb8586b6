import { z } from "zod";
import type { DirectoryAuditRecord, SignInRecord } from "../port";

/**
 * What Microsoft Graph v1.0 answers for `auditLogs/signIns` and `auditLogs/directoryAudits`, read
 * leniently: Graph omits or nulls many properties depending on the event, licence and permissions
 * (applied conditional access policies need extra consent), so every optional property becomes null
 * or empty rather than failing the page. Only what makes a row usable is required: its id and time.
 */

const text = z
  .string()
  .nullish()
  .transform((v) => v ?? null);
const flag = z
  .boolean()
  .nullish()
  .transform((v) => v ?? null);
const strings = z
  .array(z.string())
  .nullish()
  .transform((v) => v ?? []);

/** Graph's DateTimeOffset is UTC with "Z"; normalised to milliseconds so that rows order as strings. */
const instant = z.iso
  .datetime({ offset: true })
  .transform((value) => new Date(value))
  .refine((date) => !Number.isNaN(date.getTime()), "Not a valid instant.")
  .transform((date) => date.toISOString());

const location = z
  .object({
    city: text,
    state: text,
    countryOrRegion: text,
    geoCoordinates: z.object({ latitude: z.number().nullish(), longitude: z.number().nullish() }).nullish(),
  })
  .nullish()
  .transform((l) => ({
    city: l?.city ?? null,
    state: l?.state ?? null,
    countryOrRegion: l?.countryOrRegion ?? null,
    latitude: l?.geoCoordinates?.latitude ?? null,
    longitude: l?.geoCoordinates?.longitude ?? null,
  }));

const deviceDetail = z
  .object({ deviceId: text, displayName: text, operatingSystem: text, browser: text, isCompliant: flag, isManaged: flag, trustType: text })
  .nullish()
  .transform((d) => ({
    deviceId: d?.deviceId || null, // Graph sends "" for unregistered devices
    displayName: d?.displayName || null,
    operatingSystem: d?.operatingSystem ?? null,
    browser: d?.browser ?? null,
    isCompliant: d?.isCompliant ?? null,
    isManaged: d?.isManaged ?? null,
    trustType: d?.trustType || null,
  }));

export const graphSignInSchema: z.ZodType<SignInRecord> = z
  .object({
    id: z.string().min(1),
    createdDateTime: instant,
    userId: z.string(),
    userDisplayName: text,
    userPrincipalName: text,
    appId: text,
    appDisplayName: text,
    resourceDisplayName: text,
    clientAppUsed: text,
    isInteractive: flag,
    ipAddress: text,
    location,
    deviceDetail,
    status: z
      .object({ errorCode: z.number().int().nullish(), failureReason: text, additionalDetails: text })
      .nullish()
      .transform((s) => ({ errorCode: s?.errorCode ?? 0, failureReason: s?.failureReason ?? null, additionalDetails: s?.additionalDetails ?? null })),
    conditionalAccessStatus: text,
    appliedConditionalAccessPolicies: z
      .array(
        z.object({
          id: z.string(),
          displayName: text,
          result: text,
          enforcedGrantControls: strings,
          enforcedSessionControls: strings,
        }),
      )
      .nullish()
      .transform((v) => v ?? []),
    riskLevelDuringSignIn: text,
    riskLevelAggregated: text,
    riskState: text,
    riskDetail: text,
    riskEventTypes_v2: strings,
    correlationId: text,
  })
  .transform(({ riskEventTypes_v2, ...rest }) => ({ ...rest, riskEventTypes: riskEventTypes_v2 }));

export const graphDirectoryAuditSchema: z.ZodType<DirectoryAuditRecord> = z.object({
  id: z.string().min(1),
  activityDateTime: instant,
  activityDisplayName: z.string(),
  category: text,
  operationType: text,
  result: text,
  resultReason: text,
  loggedByService: text,
  correlationId: text,
  initiatedBy: z
    .object({
      user: z.object({ id: text, displayName: text, userPrincipalName: text, ipAddress: text }).nullish(),
      app: z.object({ appId: text, displayName: text, servicePrincipalId: text, servicePrincipalName: text }).nullish(),
    })
    .nullish()
    .transform((i) => ({ user: i?.user ?? null, app: i?.app ?? null })),
  targetResources: z
    .array(
      z.object({
        id: text,
        displayName: text,
        type: text,
        userPrincipalName: text,
        modifiedProperties: z
          .array(z.object({ displayName: text, oldValue: text, newValue: text }))
          .nullish()
          .transform((v) => v ?? []),
      }),
    )
    .nullish()
    .transform((v) => v ?? []),
  additionalDetails: z
    .array(z.object({ key: z.string(), value: text }))
    .nullish()
    .transform((v) => v ?? []),
});

/** One Graph collection page. */
export function graphPageSchema<T>(item: z.ZodType<T>) {
  return z.object({
    value: z.array(item),
    "@odata.nextLink": z.string().nullish(),
  });
}
