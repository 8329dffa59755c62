/**
 * Generated from /v1/openapi.json by `npm run client:generate` (openapi-typescript).
 * Do not edit: CI fails when this file differs from what the code's document generates.
 */
export interface paths {
    "/v1/workspaces/{ws}/capability-invocations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Bridge calls with outcome, reason, provider and usage */
        get: operations["invocations-list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/capability-invocations/{cap}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One Bridge call with content summaries (sizes and hashes) */
        get: operations["invocations-get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/audit-records": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List audit records
         * @description Filters combine with AND; since is inclusive, until exclusive. Records of billing., credential., binding. and service_identity. actions are visible to owners and admins only.
         */
        get: operations["audit-list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/audit-records/{aud}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get an audit record you may see */
        get: operations["audit-get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/correlations/{evt}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Events caused by one correlation (headers only)
         * @description Oldest first, without data. An unknown correlation id gives an empty list.
         */
        get: operations["audit-correlation"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/event-schemas/{type}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * JSON Schema of an event type's data
         * @description Public. Published for capability.contract_ready (1.2.0), capability.invocation_requested (1.4.0) and capability.invocation_resulted (1.1.0). `version`, when given, must be the current version (else 404).
         */
        get: operations["events-schema"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/platform/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Create a user (platform admins) */
        post: operations["identity-createUser"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the caller's workspaces */
        get: operations["workspaces-list"];
        put?: never;
        /** Create a workspace (you become its owner) */
        post: operations["workspaces-create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a workspace */
        get: operations["workspaces-get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Rename a workspace (owner or admin) */
        patch: operations["workspaces-rename"];
        trace?: never;
    };
    "/v1/workspaces/{ws}/members": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List members */
        get: operations["workspaces-members"];
        put?: never;
        /** Add a member by email */
        post: operations["workspaces-addMember"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/members/{usr}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Add a member or change their role */
        put: operations["workspaces-putMember"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/invitations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List invitations (default: pending ones that have not expired) */
        get: operations["invitations-list"];
        put?: never;
        /** Invite someone by email (owner or admin; 409 when already a member or invited) */
        post: operations["invitations-create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/invitations/{invt}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get an invitation */
        get: operations["invitations-get"];
        put?: never;
        post?: never;
        /** Revoke a pending invitation (its link stops working) */
        delete: operations["invitations-revoke"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/invitations/{invt}/resend": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Email the invitation again with a new link and a new expiry (the old link stops working; rate-limited) */
        post: operations["invitations-resend"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/invitations/accept": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Accept an invitation as the signed-in user (the account's email must be the invited address) */
        post: operations["invitations-accept"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/plan": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get the workspace plan and entitlements */
        get: operations["usage-plan"];
        /** Change the plan */
        put: operations["usage-setPlan"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/budgets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This UTC month's budget per usage category */
        get: operations["usage-budgets"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/budgets/{category}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Set a monthly budget limit (null = unlimited) */
        put: operations["usage-setBudget"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/event-subscriptions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List webhook endpoints */
        get: operations["webhooks-list"];
        put?: never;
        /** Register a webhook endpoint (the signing secret is shown once) */
        post: operations["webhooks-create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/event-subscriptions/{wb}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a webhook endpoint */
        get: operations["webhooks-get"];
        put?: never;
        post?: never;
        /** Delete a webhook endpoint */
        delete: operations["webhooks-delete"];
        options?: never;
        head?: never;
        /** Rename a webhook endpoint (names are unique in the workspace, ignoring case: 409 name_taken) */
        patch: operations["webhooks-rename"];
        trace?: never;
    };
    "/v1/workspaces/{ws}/event-subscriptions/{wb}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send a signed webhook.test event to this endpoint now and show the request and the answer (not retried, no other endpoint gets it) */
        post: operations["webhooks-test"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/event-subscriptions/{wb}:rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Replace the signing secret (shown once; the old one keeps signing for previous_secret_expires_in, default 24 h) and re-enable the endpoint */
        post: operations["webhooks-rotateSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/event-subscriptions/{wb}:revoke-previous-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Stop signing with the previous secret now (ends a rotation's overlap); idempotent */
        post: operations["webhooks-revokePreviousSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/event-subscriptions/{wb}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Recent deliveries with their attempts */
        get: operations["webhooks-deliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/outbox/dead-letters": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Deliveries that exhausted their retries */
        get: operations["webhooks-deadLetters"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/outbox/dead-letters/{dlq}:redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Queue a dead letter for delivery again */
        post: operations["webhooks-redeliver"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/products": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List products */
        get: operations["source-listProducts"];
        put?: never;
        /** Create a product from a repository reference (the source is frozen asynchronously) */
        post: operations["source-createProduct"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/products/{prod}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a product */
        get: operations["source-getProduct"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Rename a product (names are unique in the workspace, ignoring case: 409 name_taken) */
        patch: operations["source-renameProduct"];
        trace?: never;
    };
    "/v1/workspaces/{ws}/products/{prod}/source-freezes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Freeze the product's repository again at a ref (a new revision) */
        post: operations["source-refreeze"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/source-freezes/{frz}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Progress and outcome of a source freeze */
        get: operations["source-getSourceFreeze"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/products/{prod}/revisions/{rev}/descriptor:confirm": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Confirm (and edit) the detected runtime descriptor; makes the contract ready */
        post: operations["source-confirmDescriptor"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/revisions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List revisions */
        get: operations["source-listRevisions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/revisions/{rev}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a revision */
        get: operations["source-getRevision"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspace_id}/revisions/{revision_id}/capability-contract": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The revision's capability contract */
        get: operations["source-capabilityContract"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/service-identities": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the workspace's service identities */
        get: operations["serviceIdentities-list"];
        put?: never;
        /** Create a service identity (the client secret is shown once) */
        post: operations["serviceIdentities-create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/service-identities/{svc}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a service identity (metadata only) */
        get: operations["serviceIdentities-get"];
        put?: never;
        post?: never;
        /** Revoke a service identity permanently (idempotent) */
        delete: operations["serviceIdentities-revoke"];
        options?: never;
        head?: never;
        /** Rename a service identity (names are unique among identities not revoked, ignoring case: 409 name_taken) */
        patch: operations["serviceIdentities-rename"];
        trace?: never;
    };
    "/v1/workspaces/{ws}/service-identities/{svc}:rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Replace the client secret (shown once); the old one works until previous_secret_expires_in has passed (default: stops at once) */
        post: operations["serviceIdentities-rotateSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/service-identities/{svc}:revoke-previous-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Stop the previous client secret now (and bridge tokens obtained with it); idempotent */
        post: operations["serviceIdentities-revokePreviousSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/platform/service-identities": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List platform service identities */
        get: operations["serviceIdentities-platformList"];
        put?: never;
        /** Create a platform service identity (the client secret is shown once) */
        post: operations["serviceIdentities-platformCreate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/platform/service-identities/{svc}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a platform service identity */
        get: operations["serviceIdentities-platformGet"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Rename a platform service identity (409 name_taken when another live one has the name) */
        patch: operations["serviceIdentities-platformRename"];
        trace?: never;
    };
    "/v1/platform/service-identities/{svc}:revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Revoke a platform service identity permanently (idempotent) */
        post: operations["serviceIdentities-platformRevoke"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/platform/service-identities/{svc}:rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Replace a platform identity's client secret (shown once), optionally keeping the old one for a while */
        post: operations["serviceIdentities-platformRotateSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/platform/service-identities/{svc}:revoke-previous-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Stop a platform identity's previous client secret now; idempotent */
        post: operations["serviceIdentities-platformRevokePreviousSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/credentials": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List credentials (metadata only) */
        get: operations["credentials-list"];
        put?: never;
        /** Store a credential (the secret is write-only) */
        post: operations["credentials-create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/credentials/{cred}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a credential (metadata only) */
        get: operations["credentials-get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/credentials/{cred}:revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Revoke permanently; bindings using it are revoked too */
        post: operations["credentials-revoke"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/provider-bindings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List provider bindings */
        get: operations["bindings-list"];
        put?: never;
        /** Bind a credential to a capability (201; status ready, or failed when the credential has expired) */
        post: operations["bindings-create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/provider-bindings/{bind}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a provider binding */
        get: operations["bindings-get"];
        put?: never;
        post?: never;
        /** Revoke a provider binding (kept with status revoked) */
        delete: operations["bindings-delete"];
        options?: never;
        head?: never;
        /** Rename a provider binding (names are unique among bindings not revoked, ignoring case: 409 name_taken) */
        patch: operations["bindings-rename"];
        trace?: never;
    };
    "/v1/workspaces/{ws}/provider-bindings/{bind}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Make a one-token call through the binding and show the latency and the provider's answer or error (audited as a test; charged to no budget) */
        post: operations["bindings-test"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/revisions/{rev}/deployments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Deploy a confirmed revision to preview, staging or production (runs asynchronously) */
        post: operations["deployments-create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/deployments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List deployments */
        get: operations["deployments-list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/deployments/{dep}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a deployment */
        get: operations["deployments-get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/deployments/{dep}:stop": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Stop a deployment: its process ends, its surface expires (409 when it already ended) */
        post: operations["deployments-stop"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/deployments/{dep}/logs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Build log and the tail of the running app's log */
        get: operations["deployments-logs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/pipeline-runs/{pipe}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a pipeline run (the preview pipeline of a deployment) */
        get: operations["deployments-pipelineRun"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/surfaces": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List surfaces */
        get: operations["deployments-surfaces"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/surfaces/{srf}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a surface */
        get: operations["deployments-surface"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/surfaces/{srf}/access": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Qualify (or reuse) the caller's access to a surface */
        post: operations["sessions-requestAccess"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/accesses": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List accesses to the workspace's surfaces */
        get: operations["sessions-listAccesses"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/accesses/{acc}:revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Revoke an access; its sessions close */
        post: operations["sessions-revokeAccess"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Open a session on a surface (qualifies access as needed) */
        post: operations["sessions-open"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{ses}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a session */
        get: operations["sessions-get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{ses}:close": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Close a session */
        post: operations["sessions-close"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List sessions */
        get: operations["sessions-list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{ses}/invocations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List a session's invocations */
        get: operations["sessions-invocations"];
        put?: never;
        /** Send an HTTP request through a session: admitted and executed, denied, or left pending */
        post: operations["sessions-invoke"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{ses}/invocations/{inv}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get an invocation */
        get: operations["sessions-invocation"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/pending-operations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List pending operations (invocations waiting for consent) */
        get: operations["sessions-pending"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/pending-operations/{pend}:resolve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Approve or deny a pending operation (audit pending.resolved) */
        post: operations["sessions-resolve"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/revisions/{rev}/evaluations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List a revision's evaluations */
        get: operations["releases-evaluations"];
        put?: never;
        /** Evaluate a revision (runs in the worker; idempotent per request_key) */
        post: operations["releases-evaluate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/evaluations/{qual}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get an evaluation: checks, findings, verdict */
        get: operations["releases-evaluation"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/revisions/{rev}/versions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The version a revision's passing evaluation cut (at most one) */
        get: operations["releases-revisionVersions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/versions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List versions */
        get: operations["releases-versions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/versions/{ver}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a version */
        get: operations["releases-version"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/releases": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List releases */
        get: operations["releases-releases"];
        put?: never;
        /** Create a release of a qualified version (channel staged) */
        post: operations["releases-createRelease"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/releases/{rel}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a release with its status timeline */
        get: operations["releases-release"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/releases/{rel}:approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Approve a release whose version widens the live contract (owner or admin) */
        post: operations["releases-approveRelease"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/releases/{rel}:reject": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Reject a release pending approval (owner or admin) */
        post: operations["releases-rejectRelease"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/releases/{rel}/deployments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Deploy a draft release to staging (freezes it) */
        post: operations["releases-deployRelease"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/products/{prod}/revisions/{rev}/fixes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List a revision's fixes */
        get: operations["releases-fixes"];
        put?: never;
        /** Propose a fix for a finding of the revision (deterministic rules) */
        post: operations["releases-requestFix"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/products/{prod}/revisions/{rev}/fixes/{fix}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a fix with its diff or descriptor edit */
        get: operations["releases-fix"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/products/{prod}/revisions/{rev}/fixes/{fix}:approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Approve a fix: applies it to a new revision */
        post: operations["releases-approveFix"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/products/{prod}/revisions/{rev}/fixes/{fix}:reject": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Reject a fix, saying why */
        post: operations["releases-rejectFix"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/domains": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List custom domains */
        get: operations["domains-list"];
        put?: never;
        /** Add a custom domain to a product's staging or production environment (its first DNS check is queued) */
        post: operations["domains-create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/domains/{dom}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a custom domain with the DNS records to create and the last check's result */
        get: operations["domains-get"];
        put?: never;
        post?: never;
        /** Delete a custom domain (it stops routing at once) */
        delete: operations["domains-delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/domains/{dom}/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Queue a DNS check of the domain (429 with Retry-After when asked too often) */
        post: operations["domains-verify"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/managed-resources": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List managed resources (deleted ones only with include_deleted=true) */
        get: operations["managedResources-list"];
        put?: never;
        /** Create a managed PostgreSQL database or object bucket (provisioned by the worker); the response is the only one that shows its password */
        post: operations["managedResources-create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/managed-resources/{mres}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a managed resource: status, attachment, size and the deployments using it (never its password) */
        get: operations["managedResources-get"];
        put?: never;
        post?: never;
        /** Schedule a detached resource's destruction after the grace period (409 while attached); reattach restores it until then */
        delete: operations["managedResources-delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/managed-resources/{mres}/detach": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Detach a resource from its product: the data is kept, new deployments no longer receive it */
        post: operations["managedResources-detach"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/managed-resources/{mres}/reattach": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Attach a detached resource to a product of the workspace (restores one scheduled for deletion) */
        post: operations["managedResources-reattach"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/platform/signing-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The token signing keys with their rotation state and schedule */
        get: operations["signingKeys-list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/platform/rate-cards/{provider}/{model}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The rate card version in force for a provider model, with its history (ws_platform owner/admin) */
        get: operations["billing-getRateCard"];
        /** Publish a new immutable rate card version for a provider model, effective from a time (ws_platform owner/admin) */
        put: operations["billing-putRateCard"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/platform/rate-cards": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List rate card versions (ws_platform owner/admin) */
        get: operations["billing-listRateCards"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/wallet": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The wallet: balance by currency (paid and granted) and the unexpired grants in spending order */
        get: operations["billing-wallet"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/wallet/transactions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The wallet's append-only ledger */
        get: operations["billing-transactions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/wallet/checkout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start a top-up: creates a payment order through a gateway and says where or how to pay */
        post: operations["billing-checkout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/wallet/orders": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List top-up orders */
        get: operations["billing-orders"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/wallet/orders/{pay}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a top-up order */
        get: operations["billing-order"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/platform/wallets/{ws}/grants": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Grant credit to a workspace's wallet, with a priority and an expiry (ws_platform owner/admin) */
        post: operations["billing-grant"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/platform/wallets/{ws}/refunds": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Refund (part of) a succeeded payment, never more than was paid (ws_platform owner/admin) */
        post: operations["billing-refund"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/platform/wallets/{ws}/adjustments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Correct a workspace's paid balance by a signed amount, with a reason (ws_platform owner/admin) */
        post: operations["billing-adjust"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/invoices": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Monthly invoices, issued at month close, immutable */
        get: operations["billing-invoices"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/billing-profile": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The workspace's billing profile (who invoices are addressed to) */
        get: operations["billing-subscriptions-getProfile"];
        /** Set the workspace's billing profile (owner/admin) */
        put: operations["billing-subscriptions-putProfile"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/platform/subscription-tiers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The subscription tiers on offer (any signed-in user: it is the price list) */
        get: operations["billing-subscriptions-listTiers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/platform/subscription-tiers/{tier}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One subscription tier */
        get: operations["billing-subscriptions-getTier"];
        /** Create or change a subscription tier (ws_platform owner/admin) */
        put: operations["billing-subscriptions-putTier"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/subscription": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The workspace's subscription and current period */
        get: operations["billing-subscriptions-getSubscription"];
        /** Change the workspace's tier: an upgrade is immediate with a prorated charge, a downgrade takes effect at the period's end (owner/admin) */
        put: operations["billing-subscriptions-putSubscription"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/platform/wallets/{ws}/subscription": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Set a workspace's tier as the platform (ws_platform owner/admin) */
        put: operations["billing-subscriptions-overrideSubscription"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/overview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** What is live per environment, this month's spend and the last 7 days' failures that need action */
        get: operations["overview-get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/usage-series": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Bridge calls, usage and spend per UTC day, by capability and by product */
        get: operations["overview-usage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness: the process is up */
        get: operations["getHealthz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Readiness: the database answers */
        get: operations["getReadyz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/oauth/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Issue a Bridge token to a service identity (client_credentials or RFC 8693 token exchange)
         * @description OAuth 2.0 token endpoint. client_credentials: client_id and client_secret via HTTP Basic (RFC 6749 2.3.1) or the body, not both. Token exchange: client_id (no secret) plus an external OIDC JWT whose issuer, subject and audience match the identity's federation. The result is an ES256 JWT with audience `bridge`, valid 600 s. Responses are RFC 6749 JSON, not problem documents.
         */
        post: operations["oauthToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/capabilities/{capability}/{action}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Invoke a capability within the product's confirmed contract
         * @description Bridge-audience token (POST /v1/oauth/token). The body is the schema titled "<capability> <action>" (one operation per pair is documented too). Denials are problem documents with a spec 6.3 reason: outside_contract 403, permission_denied 403, policy_blocked 403, binding_missing 409, binding_revoked 409, usage_denied 429, provider_unavailable 503, provider_rejected 422, output_blocked 403. Every response carries Capstan-Overhead-Ms and Server-Timing.
         */
        post: operations["bridgeInvoke"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/capabilities/data.kv/get": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Bridge: data.kv get
         * @description The Bridge invocation of spec 4.3 for this capability and action (the same operation as the templated path, with its exact request schema).
         */
        post: operations["bridgeDataKvGet"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/capabilities/data.kv/set": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Bridge: data.kv set
         * @description The Bridge invocation of spec 4.3 for this capability and action (the same operation as the templated path, with its exact request schema).
         */
        post: operations["bridgeDataKvSet"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/capabilities/data.kv/delete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Bridge: data.kv delete
         * @description The Bridge invocation of spec 4.3 for this capability and action (the same operation as the templated path, with its exact request schema).
         */
        post: operations["bridgeDataKvDelete"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/capabilities/data.kv/list": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Bridge: data.kv list
         * @description The Bridge invocation of spec 4.3 for this capability and action (the same operation as the templated path, with its exact request schema).
         */
        post: operations["bridgeDataKvList"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/capabilities/data.kv/increment": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Bridge: data.kv increment
         * @description The Bridge invocation of spec 4.3 for this capability and action (the same operation as the templated path, with its exact request schema).
         */
        post: operations["bridgeDataKvIncrement"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/capabilities/ai.generate/generate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Bridge: ai.generate generate
         * @description The Bridge invocation of spec 4.3 for this capability and action (the same operation as the templated path, with its exact request schema).
         */
        post: operations["bridgeAiGenerateGenerate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/capabilities/storage.object/read": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Bridge: storage.object read
         * @description The Bridge invocation of spec 4.3 for this capability and action (the same operation as the templated path, with its exact request schema).
         */
        post: operations["bridgeStorageObjectRead"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/capabilities/storage.object/write": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Bridge: storage.object write
         * @description The Bridge invocation of spec 4.3 for this capability and action (the same operation as the templated path, with its exact request schema).
         */
        post: operations["bridgeStorageObjectWrite"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/capabilities/storage.object/delete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Bridge: storage.object delete
         * @description The Bridge invocation of spec 4.3 for this capability and action (the same operation as the templated path, with its exact request schema).
         */
        post: operations["bridgeStorageObjectDelete"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/capabilities/storage.object/list": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Bridge: storage.object list
         * @description The Bridge invocation of spec 4.3 for this capability and action (the same operation as the templated path, with its exact request schema).
         */
        post: operations["bridgeStorageObjectList"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/capabilities/email.send/send": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Bridge: email.send send
         * @description The Bridge invocation of spec 4.3 for this capability and action (the same operation as the templated path, with its exact request schema).
         */
        post: operations["bridgeEmailSendSend"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/runner/capability-invocations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Invoke a capability for an in-flight runner execution
         * @description Runner-audience token with ws, prod, exe and inv claims. Body {capability, action, request: BridgeRequest}. Answers 200 with the shape of capability.invocation_resulted (spec 6.3), the output inline.
         */
        post: operations["runnerCapabilityInvoke"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/uploads": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Upload raw bytes (an invocation body, a query string); answers an evidence reference */
        post: operations["postWorkspacesWsUploads"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{ws}/evidence/{sha256}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Download an evidence blob the workspace owns */
        get: operations["getWorkspacesWsEvidenceSha256"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payments/callbacks/{gateway}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A payment gateway's event, authenticated by its signature (manual: Capstan-Signature with CAPSTAN_MANUAL_GATEWAY_SECRET; stripe: Stripe-Signature with CAPSTAN_STRIPE_WEBHOOK_SECRET); idempotent per gateway event id, credits an order once */
        post: operations["postPaymentsCallbacksGateway"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This document (OpenAPI 3.1) */
        get: operations["getOpenApiDocument"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/jwks.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Public keys that verify Capstan-issued tokens (ES256) */
        get: operations["getJwks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/oauth-authorization-server": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** OAuth 2.0 authorization server metadata (RFC 8414) */
        get: operations["getOAuthAuthorizationServerMetadata"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/openid-configuration": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Issuer metadata: issuer, JWKS and token endpoint */
        get: operations["getOpenIdConfiguration"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        ServiceIdentityFederation: {
            /** @description OIDC issuer URL; must equal the `iss` claim of the external tokens exactly */
            issuer: string;
            /** @description Exact `sub` claim of the external token (e.g. repo:acme/shop:ref:refs/heads/main) */
            subject: string;
            /** @description A value the external token's `aud` claim must contain */
            audience: string;
        };
        CapabilityScope: {
            /** @constant */
            id: "ai.generate";
            scope: {
                models: ("text" | "embedding")[];
                max_tokens_per_call: number;
            };
            /** @description The provider's model name per model kind; each kind listed in scope.models needs one */
            provider_models: {
                text?: string;
                embedding?: string;
            };
        } | {
            /** @constant */
            id: "storage.object";
            scope: {
                prefix: string;
                max_object_bytes: number;
            };
        } | {
            /** @constant */
            id: "data.kv";
            scope: {
                prefix: string;
                max_value_bytes: number;
                max_keys: number;
            };
        } | {
            /** @constant */
            id: "email.send";
            scope: {
                from_addresses: string[];
                recipient_domains: string[];
                max_recipients: number;
                max_message_bytes: number;
            };
        };
        ProviderConfig: {
            /** @description ai.generate: API base URL, e.g. https://api.openai.com/v1 */
            base_url?: string;
            /**
             * @description ai.generate: wire protocol (default openai)
             * @enum {string}
             */
            api_style?: "openai" | "anthropic";
            /** @description email.send: SMTP host */
            host?: string;
            /** @description email.send: SMTP port */
            port?: number;
            /** @description email.send: implicit TLS (port 465); otherwise STARTTLS is required */
            secure?: boolean;
            /** @description storage.object: S3-compatible endpoint URL */
            endpoint?: string;
            /** @description storage.object: bucket name */
            bucket?: string;
            /** @description storage.object: region */
            region?: string;
        };
        TierDefaultBudgets: {
            ai_tokens?: number | null;
            runtime?: number | null;
            provider_call?: number | null;
            storage?: number | null;
        };
        CapabilityInvocations: {
            items: components["schemas"]["CapabilityInvocation"][];
            next_cursor: string | null;
        };
        CapabilityInvocation: {
            id: string;
            workspace_id: string;
            product_id: string;
            revision_id: string | null;
            service_identity_id: string | null;
            deployment_id: string | null;
            execution_id: string | null;
            bridge_invocation_id: string | null;
            capability: string;
            action: string;
            /** @enum {string} */
            outcome: "requested" | "completed" | "denied" | "failed";
            reason: string | null;
            provider: string | null;
            binding_id: string | null;
            fallback_used: boolean;
            usage: {
                units: number;
                unit: string;
            };
            charge: {
                amount_micros: number;
                currency: string;
                rate_card_version_id: string;
            } | null;
            request: {
                sha256: string;
                size_bytes: number;
                shape: {
                    [key: string]: unknown;
                };
            };
            output: {
                sha256: string;
                size_bytes: number;
            } | null;
            correlation_id: string;
            latency_ms: number | null;
            overhead_ms: number | null;
            requested_at: string;
            finished_at: string | null;
            created_at: string;
        };
        AuditRecords: {
            items: components["schemas"]["AuditRecord"][];
            next_cursor: string | null;
        };
        AuditRecord: {
            id: string;
            workspace_id: string;
            /** @description Position in the workspace's hash chain, from 1 without gaps */
            sequence: number;
            /** @enum {string} */
            action: "billing.payment_succeeded" | "billing.payment_failed" | "billing.refunded" | "billing.subscription_changed" | "billing.profile_changed" | "billing.invoice_issued" | "billing.granted" | "billing.adjusted" | "billing.tier_changed" | "billing.rate_card_updated" | "credential.created" | "credential.revoked" | "binding.requested" | "binding.ready" | "binding.failed" | "binding.revoked" | "binding.expired" | "service_identity.created" | "service_identity.revoked" | "service_identity.secret_rotated" | "member.upserted" | "member.role_changed" | "platform.bootstrapped" | "product.created" | "release.created" | "deployment.requested" | "deployment.ready" | "deployment.stopped" | "plan.changed" | "budget.changed" | "capability.denied" | "capability.output_blocked" | "capability.fallback" | "bridge.rejected" | "usage.denied" | "access.qualified" | "access.denied" | "access.revoked" | "isolation.unenforced_run" | "isolation.blocked" | "pending.resolved" | "fix.requested" | "fix.decided" | "adjudication.decided" | "authz.forbidden" | "authz.workspace_mismatch" | "audit.exported" | "audit.retention_deleted" | "product.renamed" | "service_identity.renamed" | "binding.renamed" | "webhook.renamed" | "member.invited" | "member.invitation_resent" | "member.invitation_revoked" | "webhook.tested" | "binding.tested" | "workspace.renamed";
            actor: {
                /** @enum {string} */
                kind: "user" | "service" | "system";
                /** @description usr_ or svc_ id; null for the system */
                id: string | null;
            };
            target: {
                kind: string;
                id: string;
            } | null;
            /** @description The evt_ correlation id of the request or job that caused the record */
            correlation_id: string;
            /** @description Action-specific facts; secret-looking fields are redacted */
            details: {
                [key: string]: unknown;
            };
            /** @description hash of the previous record of the chain; null for the first */
            prev_hash: string | null;
            /** @description sha256(prev_hash | sequence | RFC 8785 canonical JSON of the record body) */
            hash: string;
            created_at: string;
        };
        CorrelationEvents: {
            correlation_id: string;
            items: components["schemas"]["EventHeader"][];
            next_cursor: null;
        };
        EventHeader: {
            id: string;
            type: string;
            version: string;
            source: string;
            subject: string | null;
            time: string;
            workspace_id: string;
            correlation_id: string;
            /** @description URL of the data's JSON Schema; null for types without a published schema */
            dataschema: string | null;
        };
        /** @description A JSON Schema (draft 2020-12) of an event's data */
        EventDataSchema: {
            /** @constant */
            $schema: "https://json-schema.org/draft/2020-12/schema";
            $id: string;
        } & {
            [key: string]: unknown;
        };
        User: {
            id: string;
            email: string;
            name: string;
            created_at: string;
        };
        Workspaces: {
            items: components["schemas"]["Workspace"][];
            next_cursor: string | null;
        };
        Workspace: {
            id: string;
            name: string;
            /** @enum {string} */
            plan: "free" | "team" | "enterprise";
            /**
             * @description The caller's role in this workspace
             * @enum {string}
             */
            role: "owner" | "admin" | "developer" | "viewer";
            created_at: string;
            updated_at: string;
        };
        Members: {
            items: components["schemas"]["Member"][];
            next_cursor: string | null;
        };
        Member: {
            id: string;
            workspace_id: string;
            user_id: string;
            email: string;
            name: string;
            /** @enum {string} */
            role: "owner" | "admin" | "developer" | "viewer";
            created_at: string;
            updated_at: string;
        };
        Invitation: {
            id: string;
            workspace_id: string;
            email: string;
            /** @enum {string} */
            role: "owner" | "admin" | "developer" | "viewer";
            /**
             * @description A pending invitation past expires_at reads as expired
             * @enum {string}
             */
            status: "pending" | "accepted" | "revoked" | "expired";
            invited_by: {
                id: string;
                name: string | null;
                email: string | null;
            };
            expires_at: string;
            last_sent_at: string | null;
            send_count: number;
            /**
             * @description Whether the mail server accepted the last invitation email
             * @enum {string}
             */
            email_status: "pending" | "sent" | "failed";
            /** @description Why the last email was not accepted, in words */
            email_error: string | null;
            accepted_at: string | null;
            accepted_by_id: string | null;
            revoked_at: string | null;
            created_at: string;
            updated_at: string;
        };
        Invitations: {
            items: components["schemas"]["Invitation"][];
            next_cursor: string | null;
        };
        InvitationAccepted: {
            workspace_id: string;
            workspace_name: string;
            /** @enum {string} */
            role: "owner" | "admin" | "developer" | "viewer";
            /** @description True when the user was already a member (their role is not changed) */
            already_member: boolean;
        };
        Plan: {
            id: string;
            workspace_id: string;
            /** @enum {string} */
            plan: "free" | "team" | "enterprise";
            entitlements: {
                ai_tokens: boolean;
                runtime: boolean;
                provider_call: boolean;
                storage: boolean;
            };
            created_at: string;
            updated_at: string;
        };
        Budgets: {
            items: components["schemas"]["Budget"][];
            next_cursor: null;
        };
        Budget: {
            id: string;
            workspace_id: string;
            /** @enum {string} */
            usage_category: "ai_tokens" | "runtime" | "provider_call" | "storage";
            month: string;
            limit_units: number | null;
            used_units: number;
            reserved_units: number;
            created_at: string;
            updated_at: string;
        };
        EventSubscriptionWithSecret: {
            id: string;
            workspace_id: string;
            /** @description Unique in the workspace, ignoring case */
            name: string;
            url: string;
            description: string | null;
            event_types: string[];
            /** @enum {string} */
            status: "active" | "disabled";
            disabled_reason: string | null;
            /** @description When the signing secret was last rotated (null: the secret from creation) */
            secret_rotated_at: string | null;
            /** @description During a rotation's overlap: until when deliveries also carry a signature made with the previous secret. Null when only the current secret signs (the current secret does not expire). */
            previous_secret_expires_at: string | null;
            /** @description When a delivery to this endpoint was last queued (null: never) */
            last_activity_at: string | null;
            created_at: string;
            updated_at: string;
            /** @description Standard Webhooks signing secret (whsec_...). Shown only in this response; absent when the request is an idempotent replay (Idempotent-Replayed: true). */
            secret?: string;
        };
        EventSubscriptions: {
            items: components["schemas"]["EventSubscription"][];
            next_cursor: string | null;
        };
        EventSubscription: {
            id: string;
            workspace_id: string;
            /** @description Unique in the workspace, ignoring case */
            name: string;
            url: string;
            description: string | null;
            event_types: string[];
            /** @enum {string} */
            status: "active" | "disabled";
            disabled_reason: string | null;
            /** @description When the signing secret was last rotated (null: the secret from creation) */
            secret_rotated_at: string | null;
            /** @description During a rotation's overlap: until when deliveries also carry a signature made with the previous secret. Null when only the current secret signs (the current secret does not expire). */
            previous_secret_expires_at: string | null;
            /** @description When a delivery to this endpoint was last queued (null: never) */
            last_activity_at: string | null;
            created_at: string;
            updated_at: string;
        };
        WebhookTestResult: {
            /** @description The test event's id, also its webhook-id header */
            event_id: string;
            subscription_id: string;
            /** @description True when the endpoint answered 2xx */
            delivered: boolean;
            request: {
                /** @constant */
                method: "POST";
                url: string;
                /** @description Including webhook-id, webhook-timestamp and webhook-signature */
                headers: {
                    [key: string]: string;
                };
                /** @description The CloudEvent sent, as JSON text */
                body: string;
            };
            /** @description Null when no answer came (network error, timeout, refused address) */
            response: {
                status: number;
                headers: {
                    [key: string]: string;
                };
                /** @description The first 2048 bytes of the answer, as text */
                body_excerpt: string;
                body_truncated: boolean;
            } | null;
            /** @description Why the delivery failed, in words; null when delivered */
            error: string | null;
            duration_ms: number;
            sent_at: string;
        };
        WebhookDeliveries: {
            items: components["schemas"]["WebhookDelivery"][];
            next_cursor: string | null;
        };
        WebhookDelivery: {
            id: string;
            subscription_id: string;
            event_id: string;
            event_type: string;
            /** @enum {string} */
            status: "pending" | "delivered" | "failed" | "dead";
            attempt_count: number;
            last_status_code: number | null;
            last_error: string | null;
            next_attempt_at: string | null;
            delivered_at: string | null;
            created_at: string;
            attempts: {
                attempt: number;
                status_code: number | null;
                error: string | null;
                duration_ms: number;
                created_at: string;
            }[];
        };
        DeadLetters: {
            items: components["schemas"]["DeadLetter"][];
            next_cursor: string | null;
        };
        DeadLetter: {
            id: string;
            workspace_id: string;
            subscription_id: string;
            delivery_id: string;
            event_id: string;
            event_type: string;
            attempts: number;
            last_status_code: number | null;
            last_error: string | null;
            redelivered_at: string | null;
            redelivery_id: string | null;
            created_at: string;
        };
        SourceFreezeAccepted: {
            source_freeze_id: string;
            /** @constant */
            status: "pending";
            product_id: string;
            links: {
                self: string;
            };
        };
        Products: {
            items: components["schemas"]["Product"][];
            next_cursor: string | null;
        };
        Product: {
            id: string;
            workspace_id: string;
            /** @description Unique in the workspace, ignoring case */
            name: string;
            /** @constant */
            type: "hosted-app";
            input_revision_id: string;
            repo_url: string;
            ref: string;
            /**
             * @description live: a deployment is active; otherwise from the latest source freeze: building (pending), ready (frozen), failed (rejected or failed)
             * @enum {string}
             */
            status: "building" | "ready" | "live" | "failed";
            /** @description The latest change of the product, its source freezes or its deployments */
            last_activity_at: string;
            created_at: string;
            updated_at: string;
        };
        SourceFreeze: {
            id: string;
            /** @enum {string} */
            status: "pending" | "frozen" | "rejected" | "failed";
            product: {
                id: string;
                workspace_id: string;
                /** @constant */
                type: "hosted-app";
                created_at: string;
            };
            revision: {
                id: string;
                product_id: string;
                /** @constant */
                input_type: "repository";
                created_at: string;
            };
            repo_url: string;
            ref: string;
            commit_sha: string | null;
            snapshot?: {
                uri: string;
                sha256: string;
                size_bytes: number;
            };
            replayed?: boolean;
            rejection?: {
                /** @enum {string} */
                code: "size_limit" | "file_count_limit" | "depth_limit" | "file_size_limit" | "path_length" | "traversal" | "symlink_escape" | "ref_not_found" | "host_not_allowed" | "private_source_unsupported" | "fetch_timeout" | "fetch_failed";
                detail?: {
                    actual: number;
                    limit: number;
                };
            } | {
                /** @constant */
                code: "credential_in_descriptor";
                detail?: {
                    field: string;
                };
            };
            problem?: {
                [key: string]: unknown;
            };
            created_at: string;
            updated_at: string;
        };
        Revision: {
            id: string;
            workspace_id: string;
            product_id: string;
            input_revision_id: string;
            /** @constant */
            product_type: "hosted-app";
            descriptor: components["schemas"]["Descriptor"] | null;
            descriptor_hash: string | null;
            confirmed_by: string | null;
            /** @enum {string} */
            descriptor_status: "pending" | "detected" | "confirmed" | "unavailable";
            findings: {
                kind: string;
                severity: string;
                code: string;
                message: string;
            }[];
            commit_sha: string | null;
            snapshot: {
                uri: string;
                sha256: string;
                size_bytes: number;
            } | null;
            source_freeze_id: string;
            capability_contract?: {
                /** @constant */
                status: "rejected";
                /** @enum {string} */
                reason: "unknown_capability" | "unknown_action" | "scope_invalid" | "scope_widened" | "owner_not_supported" | "contract_too_large";
            };
            created_at: string;
            updated_at: string;
        };
        Descriptor: {
            runtime: {
                /** @enum {string} */
                kind: "node" | "shell";
                version: string | null;
            };
            entrypoint: {
                command: string;
                args: string[];
            };
            ports: {
                port: number;
                /** @constant */
                protocol: "http";
            }[];
            field_sources: {
                [key: string]: "detected" | "developer";
            };
            build_plan?: {
                runtime: {
                    /** @enum {string} */
                    kind: "node" | "shell";
                    version: string | null;
                };
                workdir: string;
                install: {
                    package_manager: ("pnpm" | "npm" | "yarn") | null;
                    command: string | null;
                };
                build: {
                    command: string | null;
                };
                start: {
                    command: string;
                };
                port: number;
                health: {
                    path: string;
                    timeout_ms: number;
                };
                env: ("PORT" | "NODE_ENV")[];
            };
        };
        Revisions: {
            items: components["schemas"]["Revision"][];
            next_cursor: string | null;
        };
        CapabilityContractResponse: components["schemas"]["CapabilityContract"] | {
            capability_contract: {
                /** @constant */
                status: "rejected";
                /** @enum {string} */
                reason: "unknown_capability" | "unknown_action" | "scope_invalid" | "scope_widened" | "owner_not_supported" | "contract_too_large";
            };
        };
        CapabilityContract: {
            id: string;
            product_id: string;
            revision_id: string;
            workspace_id: string;
            capabilities: {
                /** @enum {string} */
                id: "ai.generate" | "storage.object" | "data.kv" | "email.send";
                required: boolean;
                actions: string[];
                scope: {
                    [key: string]: unknown;
                };
                /** @enum {string} */
                credential_owner: "workspace" | "platform";
                provider: {
                    allow: string[];
                    /** @enum {string} */
                    fallback: "none" | "listed";
                    prefer?: string;
                };
            }[];
            contract_hash: string;
            confirmed_at: string;
            created_at: string;
            updated_at: string;
        };
        ServiceIdentities: {
            items: components["schemas"]["ServiceIdentity"][];
            next_cursor: string | null;
        };
        ServiceIdentity: {
            id: string;
            workspace_id: string;
            /** @enum {string} */
            kind: "workspace" | "platform";
            name: string;
            product_id: string | null;
            environment_type: ("preview" | "staging" | "production") | null;
            /** @description OIDC federation for RFC 8693 token exchange, or null */
            federation: {
                issuer: string;
                subject: string;
                audience: string;
            } | null;
            /** @description Bridge permissions, or null: every action of the product's contract */
            permissions: string[] | null;
            /** @description The OAuth client_id: equal to id */
            client_id: string;
            /** @enum {string} */
            status: "active" | "revoked";
            secret_rotated_at: string | null;
            /** @description While the secret before the last rotation still works at the token endpoint: when it stops (see previous_secret_expires_in of :rotate-secret). Null when only the current secret works. */
            previous_secret_expires_at: string | null;
            revoked_at: string | null;
            /** @description When a token was last issued to this identity */
            last_token_at: string | null;
            created_at: string;
            updated_at: string;
        };
        ServiceIdentityCreated: {
            id: string;
            workspace_id: string;
            /** @enum {string} */
            kind: "workspace" | "platform";
            name: string;
            product_id: string | null;
            environment_type: ("preview" | "staging" | "production") | null;
            /** @description OIDC federation for RFC 8693 token exchange, or null */
            federation: {
                issuer: string;
                subject: string;
                audience: string;
            } | null;
            /** @description Bridge permissions, or null: every action of the product's contract */
            permissions: string[] | null;
            /** @description The OAuth client_id: equal to id */
            client_id: string;
            /** @enum {string} */
            status: "active" | "revoked";
            secret_rotated_at: string | null;
            /** @description While the secret before the last rotation still works at the token endpoint: when it stops (see previous_secret_expires_in of :rotate-secret). Null when only the current secret works. */
            previous_secret_expires_at: string | null;
            revoked_at: string | null;
            /** @description When a token was last issued to this identity */
            last_token_at: string | null;
            created_at: string;
            updated_at: string;
            /** @description cssec_ + 32 random bytes (base64url). Shown only in this response; use it with client_id at POST /v1/oauth/token. Absent when the request is an idempotent replay (Idempotent-Replayed: true): the secret is never stored in a replayable form. */
            client_secret?: string;
        };
        Credential: {
            id: string;
            workspace_id: string;
            /**
             * @description `platform` for credentials of ws_platform
             * @enum {string}
             */
            owner_kind: "workspace" | "platform";
            provider: string;
            capability: string;
            actions: string[];
            scope: string[];
            expires_at: string;
            created_by: string;
            created_at: string;
            updated_at: string;
            /** @description Set once the credential is revoked (revocation is permanent) */
            revoked_at: string | null;
        };
        Credentials: {
            items: components["schemas"]["Credential"][];
            next_cursor: string | null;
        };
        ProviderBinding: {
            id: string;
            workspace_id: string;
            /** @description Unique among the workspace's bindings not revoked, ignoring case */
            name: string;
            credential_id: string;
            /** @enum {string} */
            capability: "ai.generate" | "storage.object" | "data.kv" | "email.send";
            /** @description The credential's provider */
            provider: string;
            actions: string[];
            scope: string[];
            budget: {
                units: number;
                /** @constant */
                unit: "tokens";
                used_units: number;
                reserved_units: number;
            };
            capability_scope: components["schemas"]["CapabilityScope"];
            provider_config: components["schemas"]["ProviderConfig"] | null;
            /** @enum {string} */
            status: "requested" | "ready" | "failed" | "revoked" | "expired";
            /** @description Why the binding is failed, revoked or expired (e.g. credential_expired) */
            failure_reason: string | null;
            created_by: string;
            /** @description When the Bridge last called through this binding (null: never) */
            last_activity_at: string | null;
            created_at: string;
            updated_at: string;
        };
        ProviderBindings: {
            items: components["schemas"]["ProviderBinding"][];
            next_cursor: string | null;
        };
        ProviderBindingTestResult: {
            binding_id: string;
            capability: string;
            provider: string;
            /** @description The action the test made: ai.generate `generate` with max_tokens 1; email.send `smtp_check` (connect, EHLO, STARTTLS and AUTH when offered; no mail is sent); storage.object `probe` (PUT, GET, DELETE of a 16-byte object under `_capstan-test/`) */
            action: string;
            model: string | null;
            /** @description True when the provider answered the call */
            ok: boolean;
            /** @description Latency of the provider call as seen from Capstan */
            duration_ms: number;
            /** @description The provider's answer in words (the text, the embedding's length, what the SMTP server or the bucket answered), when ok */
            answer: string | null;
            /** @description What the provider reported using; not charged to any budget */
            tokens: {
                input: number;
                output: number;
            } | null;
            /** @description Why the call failed, in words */
            error: string | null;
            /** @description rejected: the provider refused the request (key, model); unavailable: no answer or a 5xx/429; credential: the binding's credential is revoked or expired */
            error_kind: ("rejected" | "unavailable" | "credential") | null;
            tested_at: string;
        };
        Deployment: {
            id: string;
            workspace_id: string;
            product_id: string;
            revision_id: string;
            /** @enum {string} */
            environment_type: "preview" | "staging" | "production";
            slot: string;
            /** @enum {string} */
            status: "planned" | "applying" | "active" | "superseded" | "blocked" | "failed";
            /** @constant */
            required_isolation_profile: "isolated-vm";
            /** @constant */
            egress: "deny";
            findings: {
                kind: string;
                severity: string;
                code: string;
                message: string;
            }[];
            pipeline_run_id?: string;
            environment_id?: string;
            reason_code?: string;
            isolation?: {
                /** @constant */
                profile: "isolated-vm";
                enforced: boolean;
                runner?: string;
                /** @enum {string} */
                sandbox?: "bubblewrap" | "none";
                sandbox_unavailable_reason?: string | null;
                filesystem?: boolean;
                network?: boolean;
                resource_limits?: boolean;
                vm_boundary?: boolean;
            };
            health?: {
                checked_at: string;
                attempts: number;
                latency_ms: number;
            };
            endpoint?: {
                address: string;
            };
            superseded_deployment_id?: string | null;
            surface_id?: string;
            source?: {
                /** @constant */
                kind: "revision";
            } | {
                /** @constant */
                kind: "release";
                release_id: string;
                version_id: string;
            };
            evidence: {
                build_log: {
                    uri: string;
                    sha256: string;
                    size_bytes: number;
                } | null;
                health_attempts: {
                    uri: string;
                    sha256: string;
                    size_bytes: number;
                } | null;
                run_log?: {
                    uri: string;
                    sha256: string;
                    size_bytes: number;
                } | null;
            };
            started_at: string | null;
            stopped_at: string | null;
            created_at: string;
            updated_at: string;
        };
        Deployments: {
            items: components["schemas"]["Deployment"][];
            next_cursor: string | null;
        };
        DeploymentLogs: {
            deployment_id: string;
            build_log: string;
            run_log: string;
            live: boolean;
        };
        PipelineRun: {
            id: string;
            workspace_id: string;
            revision_id: string;
            /** @constant */
            intent: "preview";
            /** @enum {string} */
            status: "pending_snapshot" | "authorization_requested" | "blocked" | "admitted" | "requested" | "reported" | "completed" | "failed";
            findings: {
                kind: string;
                severity: string;
                code: string;
                message: string;
            }[];
            product_id?: string;
            reason_code?: string;
            deployment_id: string | null;
            created_at: string;
            updated_at: string;
        };
        Surfaces: {
            items: components["schemas"]["Surface"][];
            next_cursor: string | null;
        };
        Surface: {
            id: string;
            workspace_id: string;
            product_id: string;
            deployment_id: string;
            environment_id: string;
            /** @enum {string} */
            environment_type: "preview" | "staging" | "production";
            /** @constant */
            surface_type: "web";
            /** @enum {string} */
            status: "awaiting_expiration_registration" | "validating" | "active" | "expiration_registration_failed" | "configuration_failed" | "expired";
            /** @constant */
            identity_requirement: "none";
            /** @constant */
            access_policy: "preview_direct";
            expires_at: string;
            deadline_id: string;
            reason_code?: string;
            url?: string;
            path_url?: string;
            route?: {
                host: string;
                path: string;
            };
            reachability?: {
                checked_at: string;
                status_code: number;
                latency_ms: number;
            };
            activated_at?: string;
            created_at: string;
            updated_at: string;
        };
        Access: {
            id: string;
            workspace_id: string;
            account_id: string | null;
            product_id: string;
            surface_id: string;
            deployment_id: string;
            /** @constant */
            access_entry: "direct_surface";
            /** @constant */
            entitlement_source: "direct";
            expires_at: string;
            reused_existing_access: boolean;
            session_id?: string;
            revoked_at: string | null;
            created_at: string;
            updated_at: string;
        };
        Accesses: {
            items: components["schemas"]["Access"][];
            next_cursor: string | null;
        };
        Session: {
            id: string;
            workspace_id: string;
            product_id: string;
            surface_id: string;
            account_id: string | null;
            access_id: string;
            environment_id: string;
            /** @enum {string} */
            state: "active" | "closed";
            closed_at: string | null;
            closed_reason: string | null;
            created_at: string;
            updated_at: string;
        };
        Sessions: {
            items: components["schemas"]["Session"][];
            next_cursor: string | null;
        };
        Invocation: {
            id: string;
            workspace_id: string;
            product_id: string;
            session_id: string;
            surface_id: string;
            account_id: string | null;
            access_id: string;
            sequence: number;
            input: components["schemas"]["InvocationCreateRequest"];
            admission: {
                invocation_id: string;
                session_id: string;
                workspace_id: string;
                product_id: string;
                surface_id: string;
                account_id: string | null;
                /** @enum {string} */
                outcome: "admitted" | "denied" | "pending";
                /** @enum {string} */
                reason: "admitted" | "permission_denied" | "policy_blocked" | "binding_unavailable" | "verification_blocked" | "usage_denied" | "rate_limited" | "pending_consent";
                execution_id: string | null;
                pending_operation_id: string | null;
                checks: {
                    /** @enum {string} */
                    name: "permission" | "policy" | "binding" | "verification" | "usage";
                    /** @enum {string} */
                    status: "passed" | "failed" | "skipped";
                }[];
                message: string;
                decided_at: string;
            } | null;
            execution: {
                execution_id: string;
                invocation_id: string;
                session_id: string;
                workspace_id: string;
                product_id: string;
                deployment_id: string | null;
                /** @enum {string} */
                execution_mode: "managed" | "remote" | "bridge";
                /** @enum {string} */
                status: "completed" | "failed" | "cancelled" | "timed_out";
                failure: {
                    /** @enum {string} */
                    code: "product_error" | "runtime_error" | "timeout" | "cancelled" | "isolation_violation";
                    message: string;
                } | null;
                result: {
                    http_status: number | null;
                    body_evidence: {
                        uri: string;
                        sha256: string;
                        size_bytes: number;
                    } | null;
                };
                log_evidence: {
                    uri: string;
                    sha256: string;
                    size_bytes: number;
                } | null;
                usage: {
                    duration_ms: number;
                    cpu_ms: number | null;
                    memory_peak_bytes: number | null;
                };
                started_at: string;
                finished_at: string;
            } | null;
            created_at: string;
            updated_at: string;
        };
        InvocationCreateRequest: {
            /** @constant */
            kind: "http_request";
            /** @enum {string} */
            method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD" | "OPTIONS";
            path: string;
            query_evidence?: {
                uri: string;
                sha256: string;
                size_bytes: number;
            };
            body_evidence: {
                uri: string;
                sha256: string;
                size_bytes: number;
            } | null;
        };
        Invocations: {
            items: components["schemas"]["Invocation"][];
            next_cursor: string | null;
        };
        PendingOperations: {
            items: components["schemas"]["PendingOperation"][];
            next_cursor: string | null;
        };
        PendingOperation: {
            id: string;
            workspace_id: string;
            /** @constant */
            kind: "invocation_consent";
            subject_id: string;
            /** @enum {string} */
            status: "pending" | "approved" | "denied";
            reason: string;
            requested_by: string | null;
            resolved_by: string | null;
            resolved_at: string | null;
            note: string | null;
            invocation: components["schemas"]["Invocation"] | null;
            created_at: string;
            updated_at: string;
        };
        PendingResolved: {
            pending_operation: components["schemas"]["PendingOperation"];
            invocation: components["schemas"]["Invocation"];
        };
        Evaluation: {
            id: string;
            workspace_id: string;
            product_id: string;
            revision_id: string;
            request_key: string;
            /** @enum {string} */
            status: "queued" | "deploying" | "checking" | "passed" | "failed";
            verdict: ("pass" | "fail") | null;
            checks: {
                /** @enum {string} */
                name: "descriptor" | "contract" | "deployment" | "surface" | "smoke" | "logs";
                /** @enum {string} */
                status: "pending" | "passed" | "failed" | "skipped";
                invocation_ids?: string[];
                finished_at: string | null;
            }[];
            findings: {
                id: string;
                /** @enum {string} */
                check: "descriptor" | "contract" | "deployment" | "surface" | "smoke" | "logs";
                kind: string;
                severity: string;
                code: string;
                message: string;
            }[];
            deployment_id: string | null;
            session_id: string | null;
            version_id: string | null;
            created_by: string;
            started_at: string | null;
            finished_at: string | null;
            created_at: string;
            updated_at: string;
        };
        Evaluations: {
            items: components["schemas"]["Evaluation"][];
            next_cursor: string | null;
        };
        Versions: {
            items: components["schemas"]["Version"][];
            next_cursor: string | null;
        };
        Version: {
            id: string;
            workspace_id: string;
            product_id: string;
            revision_id: string;
            number: number;
            label: string;
            contract_hash: string;
            descriptor_hash: string;
            qualification_id: string;
            qualified: boolean;
            created_at: string;
        };
        Release: {
            id: string;
            workspace_id: string;
            product_id: string;
            version_id: string;
            /** @enum {string} */
            channel: "preview_internal" | "staged" | "production";
            audience: {
                /** @enum {string} */
                kind: "internal" | "workspace" | "custom";
            };
            window: {
                starts_at: string;
                ends_at: string | null;
            };
            /** @enum {string} */
            status: "draft" | "ready" | "live" | "retired" | "blocked" | "pending_approval";
            frozen_at: string | null;
            reason_code: string | null;
            revision_id: string;
            deployment_id: string | null;
            widening: {
                why: string;
                baseline_release_id: string;
            } | null;
            adjudication: {
                id: string;
                /** @enum {string} */
                decision: "approve" | "reject";
                note: string | null;
                decided_by: string;
                decided_at: string;
            } | null;
            history: {
                /** @enum {string} */
                status: "draft" | "ready" | "live" | "retired" | "blocked" | "pending_approval";
                at: string;
                reason_code: string | null;
            }[];
            created_at: string;
            updated_at: string;
        };
        Releases: {
            items: components["schemas"]["Release"][];
            next_cursor: string | null;
        };
        ReleaseDeployment: {
            release: components["schemas"]["Release"];
            deployment: components["schemas"]["Deployment"];
        };
        Fix: {
            id: string;
            workspace_id: string;
            product_id: string;
            revision_id: string;
            finding: {
                id: string | null;
                check: string | null;
                code: string;
                message: string;
            };
            /** @enum {string} */
            rule: "missing_start_script" | "wrong_port" | "health_path_not_found" | "capabilities_schema";
            /** @enum {string} */
            kind: "source_patch" | "descriptor_edit";
            /** @enum {string} */
            status: "proposed" | "approved" | "rejected";
            summary: string;
            diff: string | null;
            descriptor_edits: {
                [key: string]: unknown;
            } | null;
            new_revision_id: string | null;
            decision: {
                /** @enum {string} */
                decision: "approve" | "reject";
                note: string | null;
                decided_by: string;
                decided_at: string;
            } | null;
            created_by: string;
            created_at: string;
            updated_at: string;
        };
        Fixes: {
            items: components["schemas"]["Fix"][];
            next_cursor: string | null;
        };
        Domains: {
            items: components["schemas"]["Domain"][];
            next_cursor: string | null;
        };
        Domain: {
            id: string;
            workspace_id: string;
            product_id: string;
            /** @enum {string} */
            environment_type: "staging" | "production";
            hostname: string;
            apex: boolean;
            /** @enum {string} */
            status: "pending_verification" | "verified" | "failed";
            verification_record: {
                /** @enum {string} */
                type: "TXT" | "CNAME" | "A" | "AAAA" | "ALIAS";
                name: string;
                value: string;
            };
            routing_records: {
                /** @enum {string} */
                type: "TXT" | "CNAME" | "A" | "AAAA" | "ALIAS";
                name: string;
                value: string;
            }[];
            check_pending: boolean;
            failure: {
                /** @enum {string} */
                code: "verification_record_missing" | "verification_record_mismatch" | "routing_record_missing" | "routing_record_mismatch" | "dns_unavailable";
                message: string;
            } | null;
            last_checked_at: string | null;
            verified_at: string | null;
            created_at: string;
            updated_at: string;
        };
        ManagedResources: {
            items: components["schemas"]["ManagedResource"][];
            next_cursor: string | null;
        };
        ManagedResource: {
            id: string;
            workspace_id: string;
            name: string;
            /** @enum {string} */
            kind: "postgres" | "object_bucket";
            /** @enum {string} */
            status: "provisioning" | "available" | "failed" | "deletion_scheduled" | "deleting" | "deleted";
            attachment: {
                product_id: string;
                environment_type: ("preview" | "staging" | "production") | null;
                env_var: string;
                attached_at: string;
            } | null;
            used_by: {
                deployment_id: string;
                /** @enum {string} */
                environment_type: "preview" | "staging" | "production";
                env_var: string;
            }[];
            connection: {
                database?: string;
                username?: string;
                host?: string;
                port?: number;
                namespace?: string;
            } | null;
            size_bytes: number;
            size_measured_at: string | null;
            limits: {
                max_size_bytes: number;
            };
            deletion: {
                requested_at: string;
                destroy_after: string;
            } | null;
            failure: {
                /** @enum {string} */
                code: "provision_failed" | "destroy_failed" | "size_limit_exceeded";
                message: string;
            } | null;
            created_at: string;
            updated_at: string;
            deleted_at: string | null;
        };
        ManagedResourceCreated: {
            id: string;
            workspace_id: string;
            name: string;
            /** @enum {string} */
            kind: "postgres" | "object_bucket";
            /** @enum {string} */
            status: "provisioning" | "available" | "failed" | "deletion_scheduled" | "deleting" | "deleted";
            attachment: {
                product_id: string;
                environment_type: ("preview" | "staging" | "production") | null;
                env_var: string;
                attached_at: string;
            } | null;
            used_by: {
                deployment_id: string;
                /** @enum {string} */
                environment_type: "preview" | "staging" | "production";
                env_var: string;
            }[];
            connection: {
                database?: string;
                username?: string;
                host?: string;
                port?: number;
                namespace?: string;
            } | null;
            size_bytes: number;
            size_measured_at: string | null;
            limits: {
                max_size_bytes: number;
            };
            deletion: {
                requested_at: string;
                destroy_after: string;
            } | null;
            failure: {
                /** @enum {string} */
                code: "provision_failed" | "destroy_failed" | "size_limit_exceeded";
                message: string;
            } | null;
            created_at: string;
            updated_at: string;
            deleted_at: string | null;
            secret: {
                password: string;
                url: string;
            } | null;
        };
        SigningKeys: {
            /** @description Newest first, at most 50 */
            items: components["schemas"]["SigningKey"][];
            /** @description Cache-Control max-age of the JWKS */
            jwks_max_age_seconds: number;
            /** @description How long a new key is published before it signs */
            publish_lead_seconds: number;
            clock_skew_seconds: number;
        };
        SigningKey: {
            kid: string;
            /** @constant */
            alg: "ES256";
            /**
             * @description next: published, not signing yet; active: signs; retiring: published until the tokens it signed expire; retired: gone from the JWKS
             * @enum {string}
             */
            state: "next" | "active" | "retiring" | "retired";
            created_at: string;
            /** @description When it starts (or started) signing */
            activates_at: string;
            /** @description When it leaves (or left) the JWKS; null while no newer key exists */
            retires_at: string | null;
            retired_at: string | null;
            retired_reason: ("scheduled" | "emergency") | null;
            /** @description The latest expiry of a token it signed (rounded up) */
            signed_until: string | null;
        };
        RateCard: {
            id: string;
            provider: string;
            model: string;
            /**
             * @description ISO 4217 code
             * @enum {string}
             */
            currency: "USD" | "EUR" | "GBP" | "CHF" | "CAD" | "AUD" | "SEK" | "NOK" | "DKK" | "PLN" | "JPY" | "KRW" | "BHD" | "KWD";
            prices: {
                input_tokens_per_million: number;
                output_tokens_per_million: number;
                per_call: number;
            };
            /** @description date-time, UTC, ending in Z */
            effective_from: string;
            effective_until: string | null;
            created_by: string;
            /** @description date-time, UTC, ending in Z */
            created_at: string;
        };
        RateCardDetail: {
            current: components["schemas"]["RateCard"] | null;
            versions: components["schemas"]["RateCard"][];
        };
        RateCards: {
            items: components["schemas"]["RateCard"][];
            next_cursor: string | null;
        };
        Wallet: {
            workspace_id: string;
            balances: {
                /**
                 * @description ISO 4217 code
                 * @enum {string}
                 */
                currency: "USD" | "EUR" | "GBP" | "CHF" | "CAD" | "AUD" | "SEK" | "NOK" | "DKK" | "PLN" | "JPY" | "KRW" | "BHD" | "KWD";
                total_micros: number;
                paid_micros: number;
                granted_micros: number;
                total_minor: number;
                held_micros: number;
                available_micros: number;
            }[];
            grants: components["schemas"]["WalletGrant"][];
        };
        WalletGrant: {
            id: string;
            workspace_id: string;
            /**
             * @description ISO 4217 code
             * @enum {string}
             */
            currency: "USD" | "EUR" | "GBP" | "CHF" | "CAD" | "AUD" | "SEK" | "NOK" | "DKK" | "PLN" | "JPY" | "KRW" | "BHD" | "KWD";
            amount_micros: number;
            remaining_micros: number;
            priority: number;
            /** @description date-time, UTC, ending in Z */
            expires_at: string;
            expired: boolean;
            reason: string | null;
            /** @description date-time, UTC, ending in Z */
            created_at: string;
        };
        WalletTransactions: {
            items: components["schemas"]["WalletTransaction"][];
            next_cursor: string | null;
        };
        WalletTransaction: {
            id: string;
            workspace_id: string;
            /** @enum {string} */
            kind: "top_up" | "grant" | "usage" | "refund" | "adjustment" | "expiry";
            /**
             * @description ISO 4217 code
             * @enum {string}
             */
            currency: "USD" | "EUR" | "GBP" | "CHF" | "CAD" | "AUD" | "SEK" | "NOK" | "DKK" | "PLN" | "JPY" | "KRW" | "BHD" | "KWD";
            amount_micros: number;
            grant_id: string | null;
            source: {
                kind: string;
                id: string;
                line: number;
            };
            /** @description date-time, UTC, ending in Z */
            created_at: string;
        };
        PaymentOrder: {
            id: string;
            workspace_id: string;
            /** @enum {string} */
            gateway: "manual" | "stripe";
            /** @enum {string} */
            status: "pending" | "succeeded" | "failed" | "expired";
            /**
             * @description ISO 4217 code
             * @enum {string}
             */
            currency: "USD" | "EUR" | "GBP" | "CHF" | "CAD" | "AUD" | "SEK" | "NOK" | "DKK" | "PLN" | "JPY" | "KRW" | "BHD" | "KWD";
            amount_minor: number;
            refunded_minor: number;
            payment_url: string | null;
            gateway_reference: string | null;
            instructions: string;
            failure_message: string | null;
            paid_at: string | null;
            /** @description date-time, UTC, ending in Z */
            created_at: string;
            /** @description date-time, UTC, ending in Z */
            updated_at: string;
        };
        PaymentOrders: {
            items: components["schemas"]["PaymentOrder"][];
            next_cursor: string | null;
        };
        Refund: {
            id: string;
            workspace_id: string;
            payment_id: string;
            /**
             * @description ISO 4217 code
             * @enum {string}
             */
            currency: "USD" | "EUR" | "GBP" | "CHF" | "CAD" | "AUD" | "SEK" | "NOK" | "DKK" | "PLN" | "JPY" | "KRW" | "BHD" | "KWD";
            amount_minor: number;
            reason: string | null;
            gateway_reference: string | null;
            /** @description date-time, UTC, ending in Z */
            created_at: string;
        };
        Adjustment: {
            id: string;
            workspace_id: string;
            /**
             * @description ISO 4217 code
             * @enum {string}
             */
            currency: "USD" | "EUR" | "GBP" | "CHF" | "CAD" | "AUD" | "SEK" | "NOK" | "DKK" | "PLN" | "JPY" | "KRW" | "BHD" | "KWD";
            amount_minor: number;
            reason: string;
            /** @description date-time, UTC, ending in Z */
            created_at: string;
        };
        Invoices: {
            items: components["schemas"]["Invoice"][];
            next_cursor: string | null;
        };
        Invoice: {
            id: string;
            workspace_id: string;
            month: string;
            /** @enum {string} */
            currency: "USD" | "EUR" | "GBP" | "CHF" | "CAD" | "AUD" | "SEK" | "NOK" | "DKK" | "PLN" | "JPY" | "KRW" | "BHD" | "KWD";
            /** @constant */
            status: "issued";
            lines: ({
                /** @constant */
                kind: "usage";
                capability: string;
                provider: string;
                model: string;
                rate_card_version_id: string;
                calls: number;
                tokens: number;
                unit_prices: {
                    input_tokens_per_million: number;
                    output_tokens_per_million: number;
                    per_call: number;
                };
                amount_micros: number;
            } | {
                /** @constant */
                kind: "subscription";
                tier: string;
                amount_minor: number;
                period_start?: string;
                period_end?: string;
                proration?: boolean;
            })[];
            usage_micros: number;
            granted_micros: number;
            subscription_minor: number;
            total_minor: number;
            issued_at: string;
            created_at: string;
        };
        BillingProfile: {
            workspace_id: string;
            configured: boolean;
            legal_name: string | null;
            email: string | null;
            address: {
                line1: string;
                line2: string | null;
                city: string;
                postal_code: string;
                region: string | null;
                country: string;
            } | null;
            tax_id: string | null;
            updated_at: string | null;
        };
        SubscriptionTiers: {
            items: components["schemas"]["SubscriptionTier"][];
            next_cursor: string | null;
        };
        SubscriptionTier: {
            tier: string;
            name: string;
            /** @enum {string} */
            plan: "free" | "team" | "enterprise";
            /**
             * @description ISO 4217 code
             * @enum {string}
             */
            currency: "USD" | "EUR" | "GBP" | "CHF" | "CAD" | "AUD" | "SEK" | "NOK" | "DKK" | "PLN" | "JPY" | "KRW" | "BHD" | "KWD";
            monthly_price_minor: number;
            included_credit_minor: number;
            /** @enum {string} */
            billing_mode: "postpaid" | "prepaid";
            default_budgets: components["schemas"]["TierDefaultBudgets"];
            created_at: string;
            updated_at: string;
        };
        Subscription: {
            workspace_id: string;
            tier: string | null;
            /** @enum {string} */
            plan: "free" | "team" | "enterprise";
            currency: ("USD" | "EUR" | "GBP" | "CHF" | "CAD" | "AUD" | "SEK" | "NOK" | "DKK" | "PLN" | "JPY" | "KRW" | "BHD" | "KWD") | null;
            monthly_price_minor: number | null;
            billing_mode: ("postpaid" | "prepaid") | null;
            current_period_start: string | null;
            current_period_end: string | null;
            scheduled_tier: string | null;
            scheduled_at: string | null;
            updated_at: string | null;
        };
        WorkspaceOverview: {
            environments: {
                /** @enum {string} */
                environment_type: "preview" | "staging" | "production";
                deployments: {
                    id: string;
                    product_id: string;
                    product_name: string;
                    revision_id: string;
                    /** @enum {string} */
                    status: "planned" | "applying" | "active";
                    surface_id: string | null;
                    surface_url: string | null;
                    started_at: string | null;
                }[];
            }[];
            spend_this_month: {
                month: string;
                spend: components["schemas"]["MoneyMicros"][];
            };
            failures: {
                since: string;
                deployments: {
                    id: string;
                    product_id: string;
                    product_name: string;
                    /** @enum {string} */
                    environment_type: "preview" | "staging" | "production";
                    reason_code: string | null;
                    at: string;
                }[];
                denied: {
                    reason: string;
                    count: number;
                    last_at: string;
                }[];
                dead_letters: {
                    count: number;
                    latest: {
                        id: string;
                        event_type: string;
                        last_status_code: number | null;
                        last_error: string | null;
                        at: string;
                    }[];
                } | null;
                domains: {
                    id: string;
                    hostname: string;
                    failure_code: string | null;
                    failure_message: string | null;
                    at: string;
                }[];
            };
        };
        MoneyMicros: {
            currency: string;
            amount_micros: number;
        };
        UsageSeries: {
            since: string;
            until: string;
            days: string[];
            /** @constant */
            time_zone: "UTC";
            by_capability: components["schemas"]["UsageBucket"][];
            by_product: components["schemas"]["UsageBucket"][];
            products: {
                id: string;
                name: string;
            }[];
            totals: {
                calls: number;
                completed: number;
                denied: number;
                failed: number;
                spend: components["schemas"]["MoneyMicros"][];
            };
        };
        UsageBucket: {
            day: string;
            key: string;
            calls: number;
            completed: number;
            denied: number;
            failed: number;
            usage: {
                unit: string;
                units: number;
            }[];
            spend: components["schemas"]["MoneyMicros"][];
        };
        Problem: {
            type: string;
            title: string;
            status: number;
            detail: string;
            instance: string;
            /** @enum {string} */
            code: "bad_request" | "unauthenticated" | "forbidden" | "not_found" | "conflict" | "validation_failed" | "rate_limited" | "internal" | "unavailable";
            correlation_id: string;
            reason?: string;
            errors?: {
                path: string;
                message?: string;
                code?: string;
                retryable?: boolean;
            }[];
        };
        RunnerCapabilityResult: {
            capability_invocation_id: string;
            workspace_id: string;
            product_id: string;
            /** @enum {unknown} */
            outcome: "completed" | "denied" | "failed";
            reason: string | null;
            output: unknown;
            provider: string | null;
            fallback_used: boolean;
            usage: {
                units: number;
                unit: string;
            };
            /** Format: date-time */
            finished_at: string;
            binding_id?: string | null;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    "invocations-list": {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                order?: "asc" | "desc";
                product_id?: string;
                outcome?: "requested" | "completed" | "denied" | "failed";
                capability?: "ai.generate" | "storage.object" | "data.kv" | "email.send";
            };
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CapabilityInvocations"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "invocations-get": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
                cap: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CapabilityInvocation"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "audit-list": {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                order?: "asc" | "desc";
                action?: "billing.payment_succeeded" | "billing.payment_failed" | "billing.refunded" | "billing.subscription_changed" | "billing.profile_changed" | "billing.invoice_issued" | "billing.granted" | "billing.adjusted" | "billing.tier_changed" | "billing.rate_card_updated" | "credential.created" | "credential.revoked" | "binding.requested" | "binding.ready" | "binding.failed" | "binding.revoked" | "binding.expired" | "service_identity.created" | "service_identity.revoked" | "service_identity.secret_rotated" | "member.upserted" | "member.role_changed" | "platform.bootstrapped" | "product.created" | "release.created" | "deployment.requested" | "deployment.ready" | "deployment.stopped" | "plan.changed" | "budget.changed" | "capability.denied" | "capability.output_blocked" | "capability.fallback" | "bridge.rejected" | "usage.denied" | "access.qualified" | "access.denied" | "access.revoked" | "isolation.unenforced_run" | "isolation.blocked" | "pending.resolved" | "fix.requested" | "fix.decided" | "adjudication.decided" | "authz.forbidden" | "authz.workspace_mismatch" | "audit.exported" | "audit.retention_deleted" | "product.renamed" | "service_identity.renamed" | "binding.renamed" | "webhook.renamed" | "member.invited" | "member.invitation_resent" | "member.invitation_revoked" | "webhook.tested" | "binding.tested" | "workspace.renamed";
                actor_id?: string;
                target_id?: string;
                correlation_id?: string;
                since?: string;
                until?: string;
            };
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuditRecords"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "audit-get": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
                aud: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuditRecord"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "audit-correlation": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
                evt: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CorrelationEvents"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "events-schema": {
        parameters: {
            query?: {
                version?: string;
            };
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                type: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventDataSchema"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "identity-createUser": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: email */
                    email: string;
                    name: string;
                    password: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "workspaces-list": {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                order?: "asc" | "desc";
            };
            header?: {
                "X-Correlation-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Workspaces"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "workspaces-create": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Workspace"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "workspaces-get": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Workspace"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "workspaces-rename": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Workspace"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "workspaces-members": {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                order?: "asc" | "desc";
            };
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Members"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "workspaces-addMember": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: email */
                    email: string;
                    /** @enum {string} */
                    role: "owner" | "admin" | "developer" | "viewer";
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Member"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "workspaces-putMember": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
                usr: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    role: "owner" | "admin" | "developer" | "viewer";
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Member"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "invitations-list": {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                order?: "asc" | "desc";
                status?: "pending" | "accepted" | "revoked" | "expired";
            };
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Invitations"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "invitations-create": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: email */
                    email: string;
                    /** @enum {string} */
                    role: "owner" | "admin" | "developer" | "viewer";
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Invitation"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "invitations-get": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
                invt: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Invitation"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "invitations-revoke": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
                invt: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Invitation"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "invitations-resend": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                ws: string;
                invt: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Invitation"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited */
            429: {
                headers: {
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "invitations-accept": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    token: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InvitationAccepted"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "usage-plan": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Plan"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "usage-setPlan": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    plan: "free" | "team" | "enterprise";
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Plan"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "usage-budgets": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Budgets"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "usage-setBudget": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
                category: "ai_tokens" | "runtime" | "provider_call" | "storage";
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    limit_units: number | null;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Budget"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "webhooks-list": {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                order?: "asc" | "desc";
            };
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventSubscriptions"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "webhooks-create": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    url: string;
                    event_types: (("capability.contract_ready" | "capability.invocation_requested" | "capability.invocation_resulted" | "workspace.created" | "member.upserted" | "member.role_changed" | "plan.changed" | "budget.changed" | "product.created" | "source_freeze.completed" | "credential.created" | "credential.revoked" | "binding.changed" | "service_identity.changed" | "deployment.changed" | "pipeline_run.changed" | "surface.changed" | "access.changed" | "session.changed" | "invocation.changed" | "domain.changed" | "evaluation.changed" | "release.changed" | "fix.changed" | "managed_resource.changed") | "*")[];
                    description?: string;
                    /** @description Unique in the workspace, ignoring case (409 name_taken). Default: the description, else the URL's host (with -2, -3... when taken) */
                    name?: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventSubscriptionWithSecret"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "webhooks-get": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
                wb: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventSubscription"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "webhooks-delete": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
                wb: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "webhooks-rename": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
                wb: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Unique in the workspace, case-insensitively; 1..100 characters, stored trimmed */
                    name: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventSubscription"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "webhooks-test": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                ws: string;
                wb: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookTestResult"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "webhooks-rotateSecret": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                ws: string;
                wb: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Seconds the previous secret keeps signing deliveries next to the new one (0..604800, default 86400). During the overlap `webhook-signature` carries two `v1,` signatures (new secret first); 0 stops the old secret at once. */
                    previous_secret_expires_in?: number;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventSubscriptionWithSecret"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "webhooks-revokePreviousSecret": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                ws: string;
                wb: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventSubscription"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "webhooks-deliveries": {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                order?: "asc" | "desc";
            };
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
                wb: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDeliveries"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "webhooks-deadLetters": {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                order?: "asc" | "desc";
            };
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeadLetters"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "webhooks-redeliver": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                ws: string;
                dlq: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeadLetter"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "source-listProducts": {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                order?: "asc" | "desc";
            };
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Products"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "source-createProduct": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    repo_url: string;
                    ref: string;
                    auth: {
                        /** @constant */
                        kind: "none";
                    };
                    /** @constant */
                    product_type?: "hosted-app";
                    /** @constant */
                    input_type?: "repository";
                    /** @description Unique in the workspace, ignoring case (409 name_taken). Default: the repository's name (`shop`), or `shop-2`, `shop-3`... when taken */
                    name?: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SourceFreezeAccepted"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "source-getProduct": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
                prod: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Product"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "source-renameProduct": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
                prod: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Unique in the workspace, case-insensitively; 1..100 characters, stored trimmed */
                    name: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Product"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "source-refreeze": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                ws: string;
                prod: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    ref: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SourceFreezeAccepted"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "source-getSourceFreeze": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
                frz: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SourceFreeze"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "source-confirmDescriptor": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                ws: string;
                prod: string;
                rev: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    edits?: {
                        build_plan?: {
                            install?: {
                                command: string | null;
                            };
                            build?: {
                                command: string | null;
                            };
                            start?: {
                                command: string;
                            };
                            health?: {
                                path: string;
                            };
                        };
                        runtime?: {
                            /** @constant */
                            kind: "node";
                            version: string;
                        };
                        entrypoint?: {
                            command: string;
                            args: string[];
                        };
                        ports?: {
                            port: number;
                            /** @constant */
                            protocol: "http";
                        }[];
                    };
                    approve_widening?: boolean;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Revision"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "source-listRevisions": {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                order?: "asc" | "desc";
                product_id?: string;
            };
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Revisions"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "source-getRevision": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
                rev: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Revision"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "source-capabilityContract": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                workspace_id: string;
                revision_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CapabilityContractResponse"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "serviceIdentities-list": {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                order?: "asc" | "desc";
            };
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceIdentities"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "serviceIdentities-create": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Unique in the workspace, case-insensitively; 1..100 characters, stored trimmed */
                    name: string;
                    /** @description A product of this workspace; the Bridge checks the contract of its active revision */
                    product_id: string;
                    /**
                     * @description Limit the identity to one environment type
                     * @enum {string}
                     */
                    environment_type?: "preview" | "staging" | "production";
                    federation?: components["schemas"]["ServiceIdentityFederation"];
                    /** @description Bridge permissions (`<capability>:<action>` or `<capability>:*`); omit to allow every action of the contract */
                    permissions?: string[];
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceIdentityCreated"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "serviceIdentities-get": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
                svc: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceIdentity"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "serviceIdentities-revoke": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
                svc: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceIdentity"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "serviceIdentities-rename": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
                svc: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Unique in the workspace, case-insensitively; 1..100 characters, stored trimmed */
                    name: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceIdentity"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "serviceIdentities-rotateSecret": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                ws: string;
                svc: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Seconds the previous client secret keeps working at the token endpoint (0..604800, default 0: it stops at once, and so do bridge tokens obtained with it). Until then both secrets get tokens; tokens obtained with the previous secret live until their own exp unless it is revoked early with :revoke-previous-secret. */
                    previous_secret_expires_in?: number;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceIdentityCreated"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "serviceIdentities-revokePreviousSecret": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                ws: string;
                svc: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceIdentity"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "serviceIdentities-platformList": {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                order?: "asc" | "desc";
            };
            header?: {
                "X-Correlation-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceIdentities"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "serviceIdentities-platformCreate": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Unique in the workspace, case-insensitively; 1..100 characters, stored trimmed */
                    name: string;
                    /** @description Optional: a product of ws_platform */
                    product_id?: string;
                    /** @enum {string} */
                    environment_type?: "preview" | "staging" | "production";
                    federation?: components["schemas"]["ServiceIdentityFederation"];
                    /** @description Bridge permissions (`<capability>:<action>` or `<capability>:*`); omit to allow every action of the contract */
                    permissions?: string[];
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceIdentityCreated"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "serviceIdentities-platformGet": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                svc: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceIdentity"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "serviceIdentities-platformRename": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                svc: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Unique in the workspace, case-insensitively; 1..100 characters, stored trimmed */
                    name: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceIdentity"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "serviceIdentities-platformRevoke": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                svc: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceIdentity"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "serviceIdentities-platformRotateSecret": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                svc: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Seconds the previous client secret keeps working at the token endpoint (0..604800, default 0: it stops at once, and so do bridge tokens obtained with it). Until then both secrets get tokens; tokens obtained with the previous secret live until their own exp unless it is revoked early with :revoke-previous-secret. */
                    previous_secret_expires_in?: number;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceIdentityCreated"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "serviceIdentities-platformRevokePreviousSecret": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                svc: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceIdentity"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "credentials-list": {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                order?: "asc" | "desc";
                owner_kind?: "workspace" | "platform";
            };
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Credentials"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "credentials-create": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The provider secret (API key, password...). Write-only: never returned. */
                    secret: string;
                    /** @description Provider name, e.g. openai, anthropic, smtp, s3 */
                    provider: string;
                    /** @description The capability this credential serves (ai.generate, storage.object, data.kv, email.send) */
                    capability: string;
                    /** @description Actions the credential may be used for */
                    actions: string[];
                    /** @description Scope strings the credential covers. A binding's scope item must equal one of them, or start with the part before a trailing `*`. */
                    scope: string[];
                    /** @description When the credential stops being usable; must be in the future */
                    expires_at: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Credential"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "credentials-get": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
                cred: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Credential"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "credentials-revoke": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                ws: string;
                cred: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Credential"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "bindings-list": {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                order?: "asc" | "desc";
                capability?: "ai.generate" | "storage.object" | "data.kv" | "email.send";
                status?: "requested" | "ready" | "failed" | "revoked" | "expired";
                credential_id?: string;
            };
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProviderBindings"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "bindings-create": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    credential_id: string;
                    /** @description One of ai.generate, storage.object, data.kv, email.send; must equal the credential's capability */
                    capability: string;
                    /** @description Actions of the capability (spec 2.7) that the credential also allows */
                    actions: string[];
                    /**
                     * @description Each item must equal an item of the credential's scope, or start with the part before its trailing `*`
                     * @default []
                     */
                    scope?: string[];
                    budget: {
                        units: number;
                        /** @constant */
                        unit: "tokens";
                    };
                    capability_scope: components["schemas"]["CapabilityScope"];
                    provider_config?: components["schemas"]["ProviderConfig"];
                    /** @description Unique among the workspace's bindings not revoked, ignoring case (409 name_taken). Default: `<provider> <capability>` (with -2, -3... when taken) */
                    name?: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProviderBinding"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "bindings-get": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
                bind: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProviderBinding"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "bindings-delete": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
                bind: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "bindings-rename": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
                bind: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Unique in the workspace, case-insensitively; 1..100 characters, stored trimmed */
                    name: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProviderBinding"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "bindings-test": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                ws: string;
                bind: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProviderBindingTestResult"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "deployments-create": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                ws: string;
                rev: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    environment_type: "preview" | "staging" | "production";
                    slot?: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Deployment"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "deployments-list": {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                order?: "asc" | "desc";
                revision_id?: string;
                release_id?: string;
                product_id?: string;
                status?: "planned" | "applying" | "active" | "superseded" | "blocked" | "failed";
            };
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Deployments"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "deployments-get": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
                dep: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Deployment"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "deployments-stop": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                ws: string;
                dep: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Deployment"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "deployments-logs": {
        parameters: {
            query?: {
                tail_bytes?: number;
            };
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
                dep: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeploymentLogs"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "deployments-pipelineRun": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
                pipe: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PipelineRun"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "deployments-surfaces": {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                order?: "asc" | "desc";
                product_id?: string;
                deployment_id?: string;
            };
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Surfaces"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "deployments-surface": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
                srf: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Surface"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "sessions-requestAccess": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                srf: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Access"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "sessions-listAccesses": {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                order?: "asc" | "desc";
                surface_id?: string;
            };
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Accesses"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "sessions-revokeAccess": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                ws: string;
                acc: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Access"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "sessions-open": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    surface_id: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "sessions-get": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ses: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "sessions-close": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                ses: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "sessions-list": {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                order?: "asc" | "desc";
                surface_id?: string;
                state?: "active" | "closed";
            };
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Sessions"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "sessions-invocations": {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                order?: "asc" | "desc";
            };
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ses: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Invocations"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "sessions-invoke": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                ses: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    kind: "http_request";
                    /** @enum {string} */
                    method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD" | "OPTIONS";
                    path: string;
                    query_evidence?: {
                        uri: string;
                        sha256: string;
                        size_bytes: number;
                    };
                    body_evidence: {
                        uri: string;
                        sha256: string;
                        size_bytes: number;
                    } | null;
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Invocation"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "sessions-invocation": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ses: string;
                inv: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Invocation"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "sessions-pending": {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                order?: "asc" | "desc";
                status?: "pending" | "approved" | "denied";
            };
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PendingOperations"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "sessions-resolve": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                ws: string;
                pend: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    decision: "approve" | "deny";
                    note?: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PendingResolved"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "releases-evaluations": {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                order?: "asc" | "desc";
            };
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
                rev: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Evaluations"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "releases-evaluate": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                ws: string;
                rev: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    request_key?: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Evaluation"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "releases-evaluation": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
                qual: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Evaluation"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "releases-revisionVersions": {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                order?: "asc" | "desc";
            };
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
                rev: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Versions"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "releases-versions": {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                order?: "asc" | "desc";
                product_id?: string;
            };
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Versions"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "releases-version": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
                ver: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Version"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "releases-releases": {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                order?: "asc" | "desc";
                product_id?: string;
                version_id?: string;
                status?: "draft" | "ready" | "live" | "retired" | "blocked" | "pending_approval";
            };
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Releases"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "releases-createRelease": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    product_id: string;
                    version_id: string;
                    /** @constant */
                    channel: "staged";
                    audience: {
                        /** @enum {string} */
                        kind: "internal" | "workspace" | "custom";
                    };
                    window: {
                        starts_at: string;
                        ends_at: string | null;
                    };
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Release"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "releases-release": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
                rel: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Release"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "releases-approveRelease": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                ws: string;
                rel: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    note?: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Release"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "releases-rejectRelease": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                ws: string;
                rel: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    note?: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Release"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "releases-deployRelease": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                ws: string;
                rel: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    environment_type?: "staging";
                };
            };
        };
        responses: {
            /** @description Successful response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ReleaseDeployment"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "releases-fixes": {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                order?: "asc" | "desc";
            };
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
                prod: string;
                rev: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Fixes"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "releases-requestFix": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                ws: string;
                prod: string;
                rev: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    finding_id?: string;
                    finding_code?: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Fix"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "releases-fix": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
                prod: string;
                rev: string;
                fix: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Fix"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "releases-approveFix": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                ws: string;
                prod: string;
                rev: string;
                fix: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    note?: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Fix"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "releases-rejectFix": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                ws: string;
                prod: string;
                rev: string;
                fix: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    note: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Fix"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "domains-list": {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                order?: "asc" | "desc";
                product_id?: string;
            };
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Domains"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "domains-create": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    product_id: string;
                    /** @enum {string} */
                    environment_type: "staging" | "production";
                    hostname: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Domain"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "domains-get": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
                dom: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Domain"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "domains-delete": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
                dom: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "domains-verify": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                ws: string;
                dom: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Domain"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited */
            429: {
                headers: {
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "managedResources-list": {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                order?: "asc" | "desc";
                product_id?: string;
                include_deleted?: "true" | "false";
            };
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagedResources"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "managedResources-create": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    kind: "postgres" | "object_bucket";
                    name: string;
                    attach?: {
                        product_id: string;
                        /** @enum {string} */
                        environment_type?: "preview" | "staging" | "production";
                        env_var?: string;
                    };
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagedResourceCreated"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "managedResources-get": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
                mres: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagedResource"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "managedResources-delete": {
        parameters: {
            query?: {
                skip_grace_period?: "true" | "false";
            };
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
                mres: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagedResource"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "managedResources-detach": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                ws: string;
                mres: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagedResource"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "managedResources-reattach": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                ws: string;
                mres: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    product_id: string;
                    /** @enum {string} */
                    environment_type?: "preview" | "staging" | "production";
                    env_var?: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagedResource"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "signingKeys-list": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SigningKeys"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "billing-getRateCard": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                provider: string;
                model: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateCardDetail"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "billing-putRateCard": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                provider: string;
                model: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description ISO 4217 code
                     * @enum {string}
                     */
                    currency: "USD" | "EUR" | "GBP" | "CHF" | "CAD" | "AUD" | "SEK" | "NOK" | "DKK" | "PLN" | "JPY" | "KRW" | "BHD" | "KWD";
                    effective_from?: string;
                    prices: {
                        /** @description Micros: millionths of the currency's major unit */
                        input_tokens_per_million: number;
                        /** @description Micros: millionths of the currency's major unit */
                        output_tokens_per_million: number;
                        /** @description Micros: millionths of the currency's major unit */
                        per_call: number;
                    };
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateCard"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "billing-listRateCards": {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                order?: "asc" | "desc";
                provider?: string;
                model?: string;
            };
            header?: {
                "X-Correlation-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateCards"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "billing-wallet": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Wallet"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "billing-transactions": {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                order?: "asc" | "desc";
                kind?: "top_up" | "grant" | "usage" | "refund" | "adjustment" | "expiry";
            };
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WalletTransactions"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "billing-checkout": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Minor units (cents), > 0 */
                    amount_minor: number;
                    /**
                     * @description ISO 4217 code
                     * @enum {string}
                     */
                    currency: "USD" | "EUR" | "GBP" | "CHF" | "CAD" | "AUD" | "SEK" | "NOK" | "DKK" | "PLN" | "JPY" | "KRW" | "BHD" | "KWD";
                    /** @enum {string} */
                    gateway?: "manual" | "stripe";
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PaymentOrder"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "billing-orders": {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                order?: "asc" | "desc";
            };
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PaymentOrders"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "billing-order": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
                pay: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PaymentOrder"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "billing-grant": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Minor units (cents), > 0 */
                    amount_minor: number;
                    /**
                     * @description ISO 4217 code
                     * @enum {string}
                     */
                    currency: "USD" | "EUR" | "GBP" | "CHF" | "CAD" | "AUD" | "SEK" | "NOK" | "DKK" | "PLN" | "JPY" | "KRW" | "BHD" | "KWD";
                    /** @default 0 */
                    priority?: number;
                    expires_at: string;
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WalletGrant"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "billing-refund": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    payment_id: string;
                    /** @description Minor units (cents), > 0 */
                    amount_minor: number;
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Refund"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "billing-adjust": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    amount_minor: number;
                    /**
                     * @description ISO 4217 code
                     * @enum {string}
                     */
                    currency: "USD" | "EUR" | "GBP" | "CHF" | "CAD" | "AUD" | "SEK" | "NOK" | "DKK" | "PLN" | "JPY" | "KRW" | "BHD" | "KWD";
                    reason: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Adjustment"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "billing-invoices": {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                order?: "asc" | "desc";
            };
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Invoices"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "billing-subscriptions-getProfile": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BillingProfile"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "billing-subscriptions-putProfile": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    legal_name: string;
                    /** Format: email */
                    email: string;
                    address: {
                        line1: string;
                        line2?: string;
                        city: string;
                        postal_code: string;
                        region?: string;
                        country: string;
                    };
                    tax_id?: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BillingProfile"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "billing-subscriptions-listTiers": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubscriptionTiers"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "billing-subscriptions-getTier": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                tier: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubscriptionTier"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "billing-subscriptions-putTier": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                tier: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    /** @enum {string} */
                    plan: "free" | "team" | "enterprise";
                    /**
                     * @description ISO 4217 code
                     * @enum {string}
                     */
                    currency: "USD" | "EUR" | "GBP" | "CHF" | "CAD" | "AUD" | "SEK" | "NOK" | "DKK" | "PLN" | "JPY" | "KRW" | "BHD" | "KWD";
                    /** @description Minor units (cents) */
                    monthly_price_minor: number;
                    /** @description Minor units (cents) */
                    included_credit_minor: number;
                    /**
                     * @default postpaid
                     * @enum {string}
                     */
                    billing_mode?: "postpaid" | "prepaid";
                    /** @default {} */
                    default_budgets?: components["schemas"]["TierDefaultBudgets"];
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubscriptionTier"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "billing-subscriptions-getSubscription": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Subscription"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "billing-subscriptions-putSubscription": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    tier: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Subscription"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "billing-subscriptions-overrideSubscription": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    tier: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Subscription"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "overview-get": {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkspaceOverview"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "overview-usage": {
        parameters: {
            query?: {
                range?: "7d" | "30d" | "90d";
                since?: string;
                until?: string;
            };
            header?: {
                "X-Correlation-Id"?: string;
            };
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UsageSeries"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Bearer realm="capstan", error="invalid_token", error_description="..." */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getHealthz: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Healthy */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "ok";
                    };
                };
            };
        };
    };
    getReadyz: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Healthy */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "ready";
                    };
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    oauthToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-www-form-urlencoded": {
                    /** @enum {string} */
                    grant_type: "client_credentials" | "urn:ietf:params:oauth:grant-type:token-exchange";
                    /** @description The service identity id (svc_...) */
                    client_id?: string;
                    /** @description client_credentials only, when not sent with HTTP Basic */
                    client_secret?: string;
                    /** @description Token exchange: the external OIDC JWT */
                    subject_token?: string;
                    /** @enum {string} */
                    subject_token_type?: "urn:ietf:params:oauth:token-type:jwt" | "urn:ietf:params:oauth:token-type:id_token";
                    /** @enum {string} */
                    requested_token_type?: "urn:ietf:params:oauth:token-type:access_token";
                    /** @description Optional: "bridge" */
                    audience?: string;
                    /** @description Optional (RFC 8707): a URL of this service */
                    resource?: string;
                    /** @description Ignored; the granted scope is always "bridge" */
                    scope?: string;
                };
            };
        };
        responses: {
            /** @description Token issued */
            200: {
                headers: {
                    "Cache-Control"?: "no-store";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        access_token: string;
                        /** @constant */
                        token_type: "Bearer";
                        expires_in: number;
                        scope?: string;
                        /** @description Token exchange only */
                        issued_token_type?: string;
                    };
                };
            };
            /** @description invalid_request, invalid_grant, unauthorized_client, unsupported_grant_type or invalid_target */
            400: {
                headers: {
                    "Cache-Control"?: "no-store";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        error: "invalid_request" | "invalid_client" | "invalid_grant" | "unauthorized_client" | "unsupported_grant_type" | "invalid_target" | "server_error";
                        /** @description Names the check that failed */
                        error_description: string;
                    };
                };
            };
            /** @description invalid_client */
            401: {
                headers: {
                    "Cache-Control"?: "no-store";
                    /** @description Basic realm="capstan" when HTTP Basic was used */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        error: "invalid_request" | "invalid_client" | "invalid_grant" | "unauthorized_client" | "unsupported_grant_type" | "invalid_target" | "server_error";
                        /** @description Names the check that failed */
                        error_description: string;
                    };
                };
            };
            /** @description server_error (quote the correlation id of the description) */
            500: {
                headers: {
                    "Cache-Control"?: "no-store";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        error: "invalid_request" | "invalid_client" | "invalid_grant" | "unauthorized_client" | "unsupported_grant_type" | "invalid_target" | "server_error";
                        /** @description Names the check that failed */
                        error_description: string;
                    };
                };
            };
        };
    };
    bridgeInvoke: {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path: {
                capability: "ai.generate" | "storage.object" | "data.kv" | "email.send";
                action: "generate" | "read" | "write" | "delete" | "list" | "get" | "set" | "increment" | "send";
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    key: string;
                } | {
                    key: string;
                    value: unknown;
                } | {
                    key: string;
                } | {
                    prefix: string;
                    /** @default 50 */
                    limit?: number;
                    cursor?: string;
                } | {
                    key: string;
                    /** @default 1 */
                    by?: number;
                } | {
                    /** @enum {string} */
                    model_kind: "text" | "embedding";
                    input: {
                        messages: {
                            /** @enum {string} */
                            role: "system" | "user" | "assistant";
                            content: string;
                        }[];
                    } | {
                        text: string;
                    };
                    max_tokens?: number;
                } | {
                    key: string;
                } | {
                    key: string;
                    content_base64: string;
                    content_type?: string;
                } | {
                    key: string;
                } | {
                    prefix: string;
                    /** @default 50 */
                    limit?: number;
                    cursor?: string;
                } | {
                    from: string;
                    recipients: string[];
                    subject: string;
                    text?: string;
                    html?: string;
                };
            };
        };
        responses: {
            /** @description BridgeOutput */
            200: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        capability_invocation_id: string;
                        capability: string;
                        action: string;
                        /** @constant */
                        outcome: "completed";
                        provider: string;
                        fallback_used: boolean;
                        usage: {
                            units: number;
                            /** @enum {unknown} */
                            unit: "tokens" | "ms" | "calls" | "bytes";
                        };
                        output: unknown;
                    };
                };
            };
            /** @description Bad request (an Idempotency-Key or X-Correlation-Id out of range) */
            400: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description outside_contract, permission_denied, policy_blocked or output_blocked */
            403: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown capability or action */
            404: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description binding_missing or binding_revoked; or an Idempotency-Key in flight */
            409: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request body is too large */
            413: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request body is not application/json */
            415: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body schema failure, or provider_rejected */
            422: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description usage_denied (budget exhausted) or rate_limited */
            429: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description provider_unavailable */
            503: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    bridgeDataKvGet: {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    key: string;
                };
            };
        };
        responses: {
            /** @description BridgeOutput */
            200: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        capability_invocation_id: string;
                        /** @constant */
                        capability: "data.kv";
                        /** @constant */
                        action: "get";
                        /** @constant */
                        outcome: "completed";
                        provider: string;
                        fallback_used: boolean;
                        usage: {
                            units: number;
                            /** @enum {unknown} */
                            unit: "tokens" | "ms" | "calls" | "bytes";
                        };
                        output: unknown;
                    };
                };
            };
            /** @description Bad request (an Idempotency-Key or X-Correlation-Id out of range) */
            400: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description outside_contract, permission_denied, policy_blocked or output_blocked */
            403: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown capability or action */
            404: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description binding_missing or binding_revoked; or an Idempotency-Key in flight */
            409: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request body is too large */
            413: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request body is not application/json */
            415: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body schema failure, or provider_rejected */
            422: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description usage_denied (budget exhausted) or rate_limited */
            429: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description provider_unavailable */
            503: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    bridgeDataKvSet: {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    key: string;
                    value: unknown;
                };
            };
        };
        responses: {
            /** @description BridgeOutput */
            200: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        capability_invocation_id: string;
                        /** @constant */
                        capability: "data.kv";
                        /** @constant */
                        action: "set";
                        /** @constant */
                        outcome: "completed";
                        provider: string;
                        fallback_used: boolean;
                        usage: {
                            units: number;
                            /** @enum {unknown} */
                            unit: "tokens" | "ms" | "calls" | "bytes";
                        };
                        output: unknown;
                    };
                };
            };
            /** @description Bad request (an Idempotency-Key or X-Correlation-Id out of range) */
            400: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description outside_contract, permission_denied, policy_blocked or output_blocked */
            403: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown capability or action */
            404: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description binding_missing or binding_revoked; or an Idempotency-Key in flight */
            409: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request body is too large */
            413: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request body is not application/json */
            415: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body schema failure, or provider_rejected */
            422: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description usage_denied (budget exhausted) or rate_limited */
            429: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description provider_unavailable */
            503: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    bridgeDataKvDelete: {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    key: string;
                };
            };
        };
        responses: {
            /** @description BridgeOutput */
            200: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        capability_invocation_id: string;
                        /** @constant */
                        capability: "data.kv";
                        /** @constant */
                        action: "delete";
                        /** @constant */
                        outcome: "completed";
                        provider: string;
                        fallback_used: boolean;
                        usage: {
                            units: number;
                            /** @enum {unknown} */
                            unit: "tokens" | "ms" | "calls" | "bytes";
                        };
                        output: unknown;
                    };
                };
            };
            /** @description Bad request (an Idempotency-Key or X-Correlation-Id out of range) */
            400: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description outside_contract, permission_denied, policy_blocked or output_blocked */
            403: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown capability or action */
            404: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description binding_missing or binding_revoked; or an Idempotency-Key in flight */
            409: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request body is too large */
            413: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request body is not application/json */
            415: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body schema failure, or provider_rejected */
            422: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description usage_denied (budget exhausted) or rate_limited */
            429: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description provider_unavailable */
            503: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    bridgeDataKvList: {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    prefix: string;
                    /** @default 50 */
                    limit?: number;
                    cursor?: string;
                };
            };
        };
        responses: {
            /** @description BridgeOutput */
            200: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        capability_invocation_id: string;
                        /** @constant */
                        capability: "data.kv";
                        /** @constant */
                        action: "list";
                        /** @constant */
                        outcome: "completed";
                        provider: string;
                        fallback_used: boolean;
                        usage: {
                            units: number;
                            /** @enum {unknown} */
                            unit: "tokens" | "ms" | "calls" | "bytes";
                        };
                        output: unknown;
                    };
                };
            };
            /** @description Bad request (an Idempotency-Key or X-Correlation-Id out of range) */
            400: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description outside_contract, permission_denied, policy_blocked or output_blocked */
            403: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown capability or action */
            404: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description binding_missing or binding_revoked; or an Idempotency-Key in flight */
            409: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request body is too large */
            413: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request body is not application/json */
            415: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body schema failure, or provider_rejected */
            422: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description usage_denied (budget exhausted) or rate_limited */
            429: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description provider_unavailable */
            503: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    bridgeDataKvIncrement: {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    key: string;
                    /** @default 1 */
                    by?: number;
                };
            };
        };
        responses: {
            /** @description BridgeOutput */
            200: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        capability_invocation_id: string;
                        /** @constant */
                        capability: "data.kv";
                        /** @constant */
                        action: "increment";
                        /** @constant */
                        outcome: "completed";
                        provider: string;
                        fallback_used: boolean;
                        usage: {
                            units: number;
                            /** @enum {unknown} */
                            unit: "tokens" | "ms" | "calls" | "bytes";
                        };
                        output: unknown;
                    };
                };
            };
            /** @description Bad request (an Idempotency-Key or X-Correlation-Id out of range) */
            400: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description outside_contract, permission_denied, policy_blocked or output_blocked */
            403: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown capability or action */
            404: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description binding_missing or binding_revoked; or an Idempotency-Key in flight */
            409: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request body is too large */
            413: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request body is not application/json */
            415: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body schema failure, or provider_rejected */
            422: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description usage_denied (budget exhausted) or rate_limited */
            429: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description provider_unavailable */
            503: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    bridgeAiGenerateGenerate: {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    model_kind: "text" | "embedding";
                    input: {
                        messages: {
                            /** @enum {string} */
                            role: "system" | "user" | "assistant";
                            content: string;
                        }[];
                    } | {
                        text: string;
                    };
                    max_tokens?: number;
                };
            };
        };
        responses: {
            /** @description BridgeOutput */
            200: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        capability_invocation_id: string;
                        /** @constant */
                        capability: "ai.generate";
                        /** @constant */
                        action: "generate";
                        /** @constant */
                        outcome: "completed";
                        provider: string;
                        fallback_used: boolean;
                        usage: {
                            units: number;
                            /** @enum {unknown} */
                            unit: "tokens" | "ms" | "calls" | "bytes";
                        };
                        output: unknown;
                    };
                };
            };
            /** @description Bad request (an Idempotency-Key or X-Correlation-Id out of range) */
            400: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description outside_contract, permission_denied, policy_blocked or output_blocked */
            403: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown capability or action */
            404: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description binding_missing or binding_revoked; or an Idempotency-Key in flight */
            409: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request body is too large */
            413: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request body is not application/json */
            415: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body schema failure, or provider_rejected */
            422: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description usage_denied (budget exhausted) or rate_limited */
            429: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description provider_unavailable */
            503: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    bridgeStorageObjectRead: {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    key: string;
                };
            };
        };
        responses: {
            /** @description BridgeOutput */
            200: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        capability_invocation_id: string;
                        /** @constant */
                        capability: "storage.object";
                        /** @constant */
                        action: "read";
                        /** @constant */
                        outcome: "completed";
                        provider: string;
                        fallback_used: boolean;
                        usage: {
                            units: number;
                            /** @enum {unknown} */
                            unit: "tokens" | "ms" | "calls" | "bytes";
                        };
                        output: unknown;
                    };
                };
            };
            /** @description Bad request (an Idempotency-Key or X-Correlation-Id out of range) */
            400: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description outside_contract, permission_denied, policy_blocked or output_blocked */
            403: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown capability or action */
            404: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description binding_missing or binding_revoked; or an Idempotency-Key in flight */
            409: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request body is too large */
            413: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request body is not application/json */
            415: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body schema failure, or provider_rejected */
            422: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description usage_denied (budget exhausted) or rate_limited */
            429: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description provider_unavailable */
            503: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    bridgeStorageObjectWrite: {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    key: string;
                    content_base64: string;
                    content_type?: string;
                };
            };
        };
        responses: {
            /** @description BridgeOutput */
            200: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        capability_invocation_id: string;
                        /** @constant */
                        capability: "storage.object";
                        /** @constant */
                        action: "write";
                        /** @constant */
                        outcome: "completed";
                        provider: string;
                        fallback_used: boolean;
                        usage: {
                            units: number;
                            /** @enum {unknown} */
                            unit: "tokens" | "ms" | "calls" | "bytes";
                        };
                        output: unknown;
                    };
                };
            };
            /** @description Bad request (an Idempotency-Key or X-Correlation-Id out of range) */
            400: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description outside_contract, permission_denied, policy_blocked or output_blocked */
            403: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown capability or action */
            404: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description binding_missing or binding_revoked; or an Idempotency-Key in flight */
            409: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request body is too large */
            413: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request body is not application/json */
            415: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body schema failure, or provider_rejected */
            422: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description usage_denied (budget exhausted) or rate_limited */
            429: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description provider_unavailable */
            503: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    bridgeStorageObjectDelete: {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    key: string;
                };
            };
        };
        responses: {
            /** @description BridgeOutput */
            200: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        capability_invocation_id: string;
                        /** @constant */
                        capability: "storage.object";
                        /** @constant */
                        action: "delete";
                        /** @constant */
                        outcome: "completed";
                        provider: string;
                        fallback_used: boolean;
                        usage: {
                            units: number;
                            /** @enum {unknown} */
                            unit: "tokens" | "ms" | "calls" | "bytes";
                        };
                        output: unknown;
                    };
                };
            };
            /** @description Bad request (an Idempotency-Key or X-Correlation-Id out of range) */
            400: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description outside_contract, permission_denied, policy_blocked or output_blocked */
            403: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown capability or action */
            404: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description binding_missing or binding_revoked; or an Idempotency-Key in flight */
            409: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request body is too large */
            413: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request body is not application/json */
            415: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body schema failure, or provider_rejected */
            422: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description usage_denied (budget exhausted) or rate_limited */
            429: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description provider_unavailable */
            503: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    bridgeStorageObjectList: {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    prefix: string;
                    /** @default 50 */
                    limit?: number;
                    cursor?: string;
                };
            };
        };
        responses: {
            /** @description BridgeOutput */
            200: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        capability_invocation_id: string;
                        /** @constant */
                        capability: "storage.object";
                        /** @constant */
                        action: "list";
                        /** @constant */
                        outcome: "completed";
                        provider: string;
                        fallback_used: boolean;
                        usage: {
                            units: number;
                            /** @enum {unknown} */
                            unit: "tokens" | "ms" | "calls" | "bytes";
                        };
                        output: unknown;
                    };
                };
            };
            /** @description Bad request (an Idempotency-Key or X-Correlation-Id out of range) */
            400: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description outside_contract, permission_denied, policy_blocked or output_blocked */
            403: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown capability or action */
            404: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description binding_missing or binding_revoked; or an Idempotency-Key in flight */
            409: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request body is too large */
            413: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request body is not application/json */
            415: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body schema failure, or provider_rejected */
            422: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description usage_denied (budget exhausted) or rate_limited */
            429: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description provider_unavailable */
            503: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    bridgeEmailSendSend: {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    from: string;
                    recipients: string[];
                    subject: string;
                    text?: string;
                    html?: string;
                };
            };
        };
        responses: {
            /** @description BridgeOutput */
            200: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        capability_invocation_id: string;
                        /** @constant */
                        capability: "email.send";
                        /** @constant */
                        action: "send";
                        /** @constant */
                        outcome: "completed";
                        provider: string;
                        fallback_used: boolean;
                        usage: {
                            units: number;
                            /** @enum {unknown} */
                            unit: "tokens" | "ms" | "calls" | "bytes";
                        };
                        output: unknown;
                    };
                };
            };
            /** @description Bad request (an Idempotency-Key or X-Correlation-Id out of range) */
            400: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description outside_contract, permission_denied, policy_blocked or output_blocked */
            403: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown capability or action */
            404: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description binding_missing or binding_revoked; or an Idempotency-Key in flight */
            409: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request body is too large */
            413: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request body is not application/json */
            415: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body schema failure, or provider_rejected */
            422: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description usage_denied (budget exhausted) or rate_limited */
            429: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description provider_unavailable */
            503: {
                headers: {
                    /** @description Time spent in Capstan (ms), from the request's arrival to the response's write, excluding an upstream provider's time */
                    "Capstan-Overhead-Ms"?: string;
                    /** @description Where the time went (W3C Server Timing, dur in ms): auth, admission, reserve, provider, record, overhead, total */
                    "Server-Timing"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    runnerCapabilityInvoke: {
        parameters: {
            query?: never;
            header?: {
                "X-Correlation-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    capability: "data.kv";
                    /** @constant */
                    action: "get";
                    request: {
                        key: string;
                    };
                } | {
                    /** @constant */
                    capability: "data.kv";
                    /** @constant */
                    action: "set";
                    request: {
                        key: string;
                        value: unknown;
                    };
                } | {
                    /** @constant */
                    capability: "data.kv";
                    /** @constant */
                    action: "delete";
                    request: {
                        key: string;
                    };
                } | {
                    /** @constant */
                    capability: "data.kv";
                    /** @constant */
                    action: "list";
                    request: {
                        prefix: string;
                        /** @default 50 */
                        limit?: number;
                        cursor?: string;
                    };
                } | {
                    /** @constant */
                    capability: "data.kv";
                    /** @constant */
                    action: "increment";
                    request: {
                        key: string;
                        /** @default 1 */
                        by?: number;
                    };
                } | {
                    /** @constant */
                    capability: "ai.generate";
                    /** @constant */
                    action: "generate";
                    request: {
                        /** @enum {string} */
                        model_kind: "text" | "embedding";
                        input: {
                            messages: {
                                /** @enum {string} */
                                role: "system" | "user" | "assistant";
                                content: string;
                            }[];
                        } | {
                            text: string;
                        };
                        max_tokens?: number;
                    };
                } | {
                    /** @constant */
                    capability: "storage.object";
                    /** @constant */
                    action: "read";
                    request: {
                        key: string;
                    };
                } | {
                    /** @constant */
                    capability: "storage.object";
                    /** @constant */
                    action: "write";
                    request: {
                        key: string;
                        content_base64: string;
                        content_type?: string;
                    };
                } | {
                    /** @constant */
                    capability: "storage.object";
                    /** @constant */
                    action: "delete";
                    request: {
                        key: string;
                    };
                } | {
                    /** @constant */
                    capability: "storage.object";
                    /** @constant */
                    action: "list";
                    request: {
                        prefix: string;
                        /** @default 50 */
                        limit?: number;
                        cursor?: string;
                    };
                } | {
                    /** @constant */
                    capability: "email.send";
                    /** @constant */
                    action: "send";
                    request: {
                        from: string;
                        recipients: string[];
                        subject: string;
                        text?: string;
                        html?: string;
                    };
                };
            };
        };
        responses: {
            /** @description RunnerCapabilityResult (the capability.invocation_resulted shape) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunnerCapabilityResult"];
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request body is too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The request body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Validation failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    postWorkspacesWsUploads: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                ws: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "*/*": string;
            };
        };
        responses: {
            /** @description Upload */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        uri: string;
                        sha256: string;
                        size_bytes: number;
                        id: string;
                        workspace_id: string;
                        content_type: string;
                        created_at: string;
                    };
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Empty body */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getWorkspacesWsEvidenceSha256: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                ws: string;
                sha256: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The bytes, with the content type they were stored with */
            200: {
                headers: {
                    "X-Content-Type-Options"?: "nosniff";
                    [name: string]: unknown;
                };
                content: {
                    "*/*": string;
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    postPaymentsCallbacksGateway: {
        parameters: {
            query?: never;
            header?: {
                /** @description manual: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + raw body)>; refused beyond 300 s */
                "Capstan-Signature"?: string;
                /** @description stripe: Stripe's webhook signature, verified with stripe.webhooks.constructEvent; refused beyond 300 s */
                "Stripe-Signature"?: string;
            };
            path: {
                gateway: "manual" | "stripe";
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The gateway's event id (each is applied once) */
                    id: string;
                    /** @enum {string} */
                    type: "payment.succeeded" | "payment.failed";
                    order_id: string;
                    amount_minor: number;
                    currency: string;
                    message?: string;
                } | {
                    id: string;
                    /** @constant */
                    object: "event";
                    type: string;
                    data: Record<string, never>;
                };
            };
        };
        responses: {
            /** @description Received */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        received: true;
                        /** @description This event id was already received: nothing was done */
                        duplicate: boolean;
                        order_id: string;
                        /** @enum {string} */
                        order_status: "pending" | "succeeded" | "failed" | "expired";
                    };
                };
            };
            /** @description A verified event that concerns no order here (another event type, another integration's Checkout Session): acknowledged, nothing done */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or stale signature */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown gateway or order */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not JSON */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not a payment event, or it does not match the order */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Internal error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Service unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getOpenApiDocument: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The OpenAPI document */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        openapi: string;
                        info: Record<string, never>;
                        paths: Record<string, never>;
                    };
                };
            };
        };
    };
    getJwks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description JSON Web Key Set */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        keys: {
                            kty: string;
                            kid: string;
                            alg?: string;
                            use?: string;
                            crv?: string;
                            x?: string;
                            y?: string;
                        }[];
                    };
                };
            };
        };
    };
    getOAuthAuthorizationServerMetadata: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Authorization server metadata */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        issuer: string;
                        jwks_uri: string;
                        token_endpoint: string;
                    };
                };
            };
        };
    };
    getOpenIdConfiguration: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OpenID provider metadata */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        issuer: string;
                        jwks_uri: string;
                        token_endpoint: string;
                        id_token_signing_alg_values_supported?: string[];
                        token_endpoint_auth_methods_supported?: string[];
                        grant_types_supported?: string[];
                        response_types_supported?: string[];
                        subject_types_supported?: string[];
                    };
                };
            };
        };
    };
}
