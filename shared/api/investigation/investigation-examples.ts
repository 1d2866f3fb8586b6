// Examples of the OpenAPI document for investigation logs: Tom O'Neill of Fabrikam Retail.

export const signInsExample = [
  {
    id: "c1b344f6-d1fd-85a7-acc1-f9ce1c281d0a",
    createdDateTime: "2026-03-02T17:35:44.000Z",
    userId: "7ba8dce2-3e7e-8a97-b9d3-a3119e0b1b48",
    userDisplayName: "Tom O'Neill",
    userPrincipalName: "tom.oneill@fabrikam.example",
    appId: "00000002-0000-0ff1-ce00-000000000000",
    appDisplayName: "Office 365 Exchange Online",
    resourceDisplayName: "Office 365 Exchange Online",
    clientAppUsed: "Browser",
    isInteractive: true,
    ipAddress: "198.51.100.25",
    location: { city: "Lyon", state: "Auvergne-Rhône-Alpes", countryOrRegion: "FR", latitude: 45.764, longitude: 4.8357 },
    deviceDetail: {
      deviceId: "751a68f7-c2f4-8251-ab15-8bd14f35a598",
      displayName: "WKS-A287",
      operatingSystem: "MacOs",
      browser: "Safari 17.4",
      isCompliant: true,
      isManaged: true,
      trustType: "Azure AD joined",
    },
    status: { errorCode: 0, failureReason: null, additionalDetails: null },
    conditionalAccessStatus: "success",
    appliedConditionalAccessPolicies: [
      {
        id: "6b3e1a7c-2f4d-4e8a-9c1b-0d2e3f4a5b6c",
        displayName: "Require MFA for all users",
        result: "success",
        enforcedGrantControls: ["Mfa"],
        enforcedSessionControls: [],
      },
      {
        id: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
        displayName: "Block high-risk sign-ins",
        result: "notApplied",
        enforcedGrantControls: [],
        enforcedSessionControls: [],
      },
    ],
    riskLevelDuringSignIn: "none",
    riskLevelAggregated: "none",
    riskState: "none",
    riskDetail: "none",
    riskEventTypes: [],
    correlationId: "56d32968-8c97-8858-a5d6-cb3affe90d2a",
  },
];

export const directoryAuditsExample = [
  {
    id: "Directory_9B11D9025D8E87AE93E72BD05AFEFD6B",
    activityDateTime: "2026-03-02T12:52:11.000Z",
    activityDisplayName: "Add member to group",
    category: "GroupManagement",
    operationType: "Assign",
    result: "success",
    resultReason: null,
    loggedByService: "Core Directory",
    correlationId: "f6f2085d-2fa7-8ff4-b87e-1a8b3eca4205",
    initiatedBy: {
      user: {
        id: "7ba8dce2-3e7e-8a97-b9d3-a3119e0b1b48",
        displayName: "Tom O'Neill",
        userPrincipalName: "tom.oneill@fabrikam.example",
        ipAddress: "198.51.100.25",
      },
      app: null,
    },
    targetResources: [
      {
        id: "7ba8dce2-3e7e-8a97-b9d3-a3119e0b1b48",
        displayName: null,
        type: "User",
        userPrincipalName: "tom.oneill@fabrikam.example",
        modifiedProperties: [{ displayName: "Group.DisplayName", oldValue: null, newValue: "\"Finance Approvers\"" }],
      },
    ],
    additionalDetails: [
      {
        key: "User-Agent",
        value: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36 Edg/124.0",
      },
    ],
  },
];
