import { startTelemetry } from "../shared/azure/telemetry";

// Loaded with the function files (package.json `main`), before any invocation: in Azure, where
// APPLICATIONINSIGHTS_CONNECTION_STRING is set, OpenTelemetry starts here, ahead of the Azure SDKs,
// which the services load on first use. Elsewhere nothing is loaded.
startTelemetry();
