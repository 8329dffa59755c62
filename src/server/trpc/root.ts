import "server-only";
import { auditRouter } from "@/server/domain/audit/audit.router";
import { eventsRouter } from "@/server/domain/events/events.router";
import { identityRouter } from "@/server/domain/identity/identity.router";
import { usageRouter } from "@/server/domain/usage/usage.router";
import { workspacesRouter } from "@/server/domain/workspaces/workspaces.router";
import { invitationsRouter } from "@/server/domain/invitations/invitations.router";
import { webhooksRouter } from "@/server/domain/webhooks/webhooks.router";
import { sourceRouter } from "@/server/domain/source/source.router";
import { serviceIdentitiesRouter } from "@/server/domain/service-identities/service-identities.router";
import { credentialsRouter } from "@/server/domain/credentials/credentials.router";
import { bindingsRouter } from "@/server/domain/credentials/bindings.router";
import { capabilityCallsRouter } from "@/server/domain/capabilities/capability-calls.router";
import { deploymentsRouter } from "@/server/domain/deployments/deployments.router";
import { pushHooksRouter } from "@/server/domain/deployments/push-hooks.router";
import { sessionsRouter } from "@/server/domain/sessions/sessions.router";
import { releasesRouter } from "@/server/domain/releases/releases.router";
import { domainsRouter } from "@/server/domain/domains/domains.router";
import { managedResourcesRouter } from "@/server/domain/managed-resources/managed-resources.router";
import { signingKeysRouter } from "@/server/domain/signing-keys/signing-keys.router";
import { billingRouter } from "@/server/domain/billing/billing.router";
import { overviewRouter } from "@/server/domain/overview/overview.router";
import { onboardingRouter } from "@/server/domain/onboarding/onboarding.router";
import { runnerHostsRouter } from "@/server/domain/runners/runners.router";
import { router } from "./init";

export const appRouter = router({
  // The Bridge call log; the key stays `invocations` because it names the released operationIds (invocations-list, -get).
  invocations: capabilityCallsRouter,
  audit: auditRouter,
  events: eventsRouter,
  identity: identityRouter,
  workspaces: workspacesRouter,
  invitations: invitationsRouter,
  usage: usageRouter,
  webhooks: webhooksRouter,
  source: sourceRouter,
  serviceIdentities: serviceIdentitiesRouter,
  credentials: credentialsRouter,
  bindings: bindingsRouter,
  deployments: deploymentsRouter,
  pushHooks: pushHooksRouter,
  sessions: sessionsRouter,
  releases: releasesRouter,
  domains: domainsRouter,
  managedResources: managedResourcesRouter,
  signingKeys: signingKeysRouter,
  billing: billingRouter,
  overview: overviewRouter,
  onboarding: onboardingRouter,
  runnerHosts: runnerHostsRouter,
});

export type AppRouter = typeof appRouter;
