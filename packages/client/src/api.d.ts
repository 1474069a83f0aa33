/* Generated from docs/openapi.json by openapi-typescript (pnpm --filter @ferry/client generate). Do not edit. */

export interface paths {
    "/ingest/errors": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Report errors
         * @description SPEC.md’s own format: one report, or `{errors: [...], source?}` with up to 10. Fields are coerced and cut rather than refused: a report that cannot be read at all is dropped and the rest of the batch kept, so `accepted` may be lower than the number sent. Cross-origin requests are accepted (CORS `*`, with its preflight); any Content-Type is read as JSON, so a browser may send `text/plain` to skip the preflight. `X-Service-Visitor` (optional) is the widget’s visitor token: the report is tied to that visitor. A key that matches no workspace answers 404; ingestion turned off on the deployment, 503.
         */
        post: operations["postIngestErrors"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{project}/envelope": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Receive a Sentry envelope
         * @description Sentry’s envelope endpoint, for Sentry SDKs given a Ferry DSN: the error or message event in the envelope is stored like any report; sessions, client reports and transactions are dropped (answered `{}`). The key is the DSN's public key (`X-Sentry-Auth`, `?sentry_key=`, `Authorization` or the envelope's DSN): none answers 401, one no workspace has 403. Over the workspace's rate limit: 429 with `Retry-After` and `X-Sentry-Rate-Limits`, which SDKs honour. CORS is answered for browser SDKs.
         */
        post: operations["postApiByProjectEnvelope"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{project}/store": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Receive a Sentry event (store)
         * @description Sentry’s older store endpoint, for SDKs that post one event as JSON: stored like any report. The key is the DSN's public key (`X-Sentry-Auth`, `?sentry_key=`, `Authorization` or the envelope's DSN): none answers 401, one no workspace has 403. Over the workspace's rate limit: 429 with `Retry-After` and `X-Sentry-Rate-Limits`, which SDKs honour. CORS is answered for browser SDKs.
         */
        post: operations["postApiByProjectStore"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/0/organizations/{org}/chunk-upload": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Chunk upload options
         * @description What `sentry-cli sourcemaps upload` asks first: where to post chunks, their size and how many per request.
         */
        get: operations["getApi0OrganizationsByOrgChunkUpload"];
        put?: never;
        /**
         * Upload chunks
         * @description Chunks of an artifact bundle, kept until the assemble that names them. They count towards the workspace’s source map quota (413 past it).
         */
        post: operations["postApi0OrganizationsByOrgChunkUpload"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/0/organizations/{org}/artifactbundle/assemble": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Assemble an artifact bundle
         * @description The bundle named by its SHA-1 and its chunks’ SHA-1s: answered `not_found` with the chunks still to upload, or assembled at once (unzipped, its source maps stored by debug id and URL) and answered `ok`. A bundle that cannot be read is refused with its reason.
         */
        post: operations["postApi0OrganizationsByOrgArtifactbundleAssemble"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/0/organizations/{org}/releases": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a release
         * @description `sentry-cli releases new`. Commits and refs are accepted and not kept.
         */
        post: operations["postApi0OrganizationsByOrgReleases"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/0/organizations/{org}/releases/{version}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a release
         * @description `sentry-cli releases info`; 404 for a version the workspace does not have.
         */
        get: operations["getApi0OrganizationsByOrgReleasesByVersion"];
        /**
         * Update a release
         * @description `sentry-cli releases finalize`: its release date (and URL).
         */
        put: operations["putApi0OrganizationsByOrgReleasesByVersion"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/0/organizations/{org}/releases/{version}/deploys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a release’s deploys
         * @description `sentry-cli deploys list`.
         */
        get: operations["getApi0OrganizationsByOrgReleasesByVersionDeploys"];
        put?: never;
        /**
         * Record a deploy
         * @description `sentry-cli deploys new`: the release went out to an environment.
         */
        post: operations["postApi0OrganizationsByOrgReleasesByVersionDeploys"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wh/in/{key}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Post a message to a room
         * @description No authentication header and no CSRF token: the key in the path is the credential. An optional `Idempotency-Key` header (up to 255 characters) wins over the `idempotency_key` field. An unknown, disabled or deleted key is one identical 404; a missing or over-long message text is a 422; too many posts under the key are a 429 with `Retry-After`.
         */
        post: operations["postWhInByKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wh/in/{key}/slack": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Post a message, as to a Slack incoming webhook
         * @description SPEC.md’s post (same key, rate limit, room rules and idempotency) for tools written for Slack’s or Mattermost’s incoming webhooks: `text`, `blocks`, `attachments`, `channel`, `username`, `icon_emoji`/`icon_url`, as JSON or a form’s `payload`. Answers as Slack does: `ok`, or an error code, in plain text.
         */
        post: operations["postWhInByKeySlack"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wh/in/{key}/slack/hooks/{token}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Post a message, as to a Mattermost incoming webhook
         * @description The same post as `/wh/in/{key}/slack`, at the `…/hooks/<token>` path Mattermost clients (Apprise’s `mmost://`) post to; the token is ignored. Answers as Slack and Mattermost do: `ok`, or an error code, in plain text.
         */
        post: operations["postWhInByKeySlackHooksByToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wh/in/{key}/github": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Post a GitHub webhook delivery to a room
         * @description A GitHub webhook’s Payload URL (content type `application/json` or `application/x-www-form-urlencoded`). `X-GitHub-Event` names the event (required); `X-GitHub-Delivery` is the idempotency key, so a redelivery is not posted twice; with a GitHub signing secret set on the key, `X-Hub-Signature-256` must match it (HMAC-SHA256 of the body) or the delivery is a 401. push, pull_request, issues, issue_comment, release, workflow_run and check_run become one short message each; other events and actions are answered 204.
         */
        post: operations["postWhInByKeyGithub"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wh/in/{key}/discord": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Post a message, as to a Discord webhook URL
         * @description Discord’s Execute Webhook, for discord.js’s WebhookClient given `rest: { api: "<base>/wh/in/<key>/discord" }` and for senders that post to one URL: posted to the key’s room under the same key, rate limit and rendering as `/wh/in/{key}`. An optional `Idempotency-Key` header (up to 255 characters) posts once. Errors are Discord’s, with its JSON error codes; a 429 carries `retry_after` and the `X-RateLimit-*` headers discord.js waits by.
         */
        post: operations["postWhInByKeyDiscord"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wh/in/{key}/discord/{version}/webhooks/{webhookId}/{token}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Post a message, as Discord’s Execute Webhook
         * @description Discord’s Execute Webhook, for discord.js’s WebhookClient given `rest: { api: "<base>/wh/in/<key>/discord" }` and for senders that post to one URL: posted to the key’s room under the same key, rate limit and rendering as `/wh/in/{key}`. An optional `Idempotency-Key` header (up to 255 characters) posts once. Errors are Discord’s, with its JSON error codes; a 429 carries `retry_after` and the `X-RateLimit-*` headers discord.js waits by.
         */
        post: operations["postWhInByKeyDiscordByVersionWebhooksByWebhookIdByToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wh/in/{key}/discord/{version}/webhooks/{webhookId}/{token}/messages/{messageId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a message this key posted, as Discord’s Get Webhook Message */
        get: operations["getWhInByKeyDiscordByVersionWebhooksByWebhookIdByTokenMessagesByMessageId"];
        put?: never;
        post?: never;
        /** Delete a message this key posted, as Discord’s Delete Webhook Message */
        delete: operations["deleteWhInByKeyDiscordByVersionWebhooksByWebhookIdByTokenMessagesByMessageId"];
        options?: never;
        head?: never;
        /**
         * Edit a message this key posted, as Discord’s Edit Webhook Message
         * @description The fields sent replace the message’s (`content`, `embeds`, `allowed_mentions`, `components`, `flags`; `null` clears one); `attachments` lists the files to keep, new `files[n]` are added.
         */
        patch: operations["patchWhInByKeyDiscordByVersionWebhooksByWebhookIdByTokenMessagesByMessageId"];
        trace?: never;
    };
    "/agents/v1/whoami": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The token’s workspace and its agents
         * @description Registers nothing: install.sh calls it before an install id exists, to check the token.
         */
        get: operations["getAgentsV1Whoami"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/agents/v1/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The agent’s live work stream
         * @description Server-Sent Events, open until the client leaves or the token is revoked: `hello`, then every work item not yet acked (sent again on each reconnect and after each heartbeat: the agent dedupes by `work_id`), then new items as they are logged. `Last-Event-ID` may be sent. Every call sends `X-Service-Install-Id` (8 to 64 characters of `A-Za-z0-9_-`, the instance id: a missing or malformed one is a 422), and may send `X-Service-Agent-Name` and `X-Service-Project`; the first call registers the agent.
         */
        get: operations["getAgentsV1Stream"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/agents/v1/heartbeat": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Say the agent is alive and what it is doing
         * @description Every 20 s. Online means a stream open and a heartbeat within 60 s; unacked work is sent on the stream again. Every call sends `X-Service-Install-Id` (8 to 64 characters of `A-Za-z0-9_-`, the instance id: a missing or malformed one is a 422), and may send `X-Service-Agent-Name` and `X-Service-Project`; the first call registers the agent.
         */
        post: operations["postAgentsV1Heartbeat"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/agents/v1/ack": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Acknowledge a work item
         * @description Once the item is stored on the agent’s side; it is not sent again. Acking twice is fine; a work id that is not this agent’s is a 404. Every call sends `X-Service-Install-Id` (8 to 64 characters of `A-Za-z0-9_-`, the instance id: a missing or malformed one is a 422), and may send `X-Service-Agent-Name` and `X-Service-Project`; the first call registers the agent.
         */
        post: operations["postAgentsV1Ack"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/agents/v1/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Post progress, a reply or a proposal to a work item’s conversation
         * @description `progress` is a compact chip, `reply` an ordinary message; for a `proposal` the server decides the route (quick fix or pull request) from the workspace’s ship policy and says why. A work id that is not this agent’s is a 404. Every call sends `X-Service-Install-Id` (8 to 64 characters of `A-Za-z0-9_-`, the instance id: a missing or malformed one is a 422), and may send `X-Service-Agent-Name` and `X-Service-Project`; the first call registers the agent.
         */
        post: operations["postAgentsV1Events"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/repos": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List repositories
         * @description The GitHub repositories the workspace’s installation reaches, each with `dispatch_ready`: only a ready one (linked and enabled by an admin) can be dispatched to.
         */
        get: operations["getApiV1Repos"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/feedback/{feedbackId}/dispatch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Dispatch a ticket to a coding agent
         * @description Opens an issue with the ticket’s context in the repository and starts a coding-agent task asking for a pull request, as the workspace’s dispatch identity. Refused without a dispatch identity (`no_dispatch_identity`), for a repository not ready (`repo_not_ready`), and while a dispatch of the ticket to the same repository is in flight (`dispatch_in_flight`). Poll the ticket’s `dispatches` for progress.
         */
        post: operations["postApiV1FeedbackByFeedbackIdDispatch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * This description
         * @description The OpenAPI 3.1 description of the whole API, generated from the route tables (a web server running alone answers the copy published with its build, which describes every service). Cached for 5 minutes.
         */
        get: operations["getApiV1OpenapiJson"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/feedback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List feedback tickets
         * @description One page of the workspace’s tickets, newest first, without their dispatches.
         */
        get: operations["getApiV1Feedback"];
        put?: never;
        /**
         * File a feedback ticket
         * @description Files a ticket with its own conversation room; connected agents hear about it. `note` is the feedback itself; the rest is context a coding agent receives with it.
         */
        post: operations["postApiV1Feedback"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/feedback/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a feedback ticket
         * @description The ticket including its `dispatches` array: poll it to watch a dispatch’s progress.
         */
        get: operations["getApiV1FeedbackById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Triage a feedback ticket
         * @description Sets its status, its assignee (`null` unassigns) or both; each change is also a message in the ticket’s conversation. Other keys are refused.
         */
        patch: operations["patchApiV1FeedbackById"];
        trace?: never;
    };
    "/api/v1/errors": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List error groups
         * @description One page of the workspace’s error groups, the most recently seen first. `q` takes the search grammar of the Errors page (README, "Searching errors"): `is:unresolved`, `assigned:me`, `release:`, tags, free text.
         */
        get: operations["getApiV1Errors"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/errors/bulk": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Act on many error groups
         * @description Resolves, ignores, reopens (`unresolve`), assigns or merges the groups a search matches (`q`, the Errors page’s grammar) or the groups named (`ids`): exactly one of the two. Up to 500 groups are done before the answer (200); a larger selection runs as a job (202): poll the Location.
         */
        post: operations["postApiV1ErrorsBulk"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/errors/bulk/{actionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a bulk action
         * @description How far a bulk action is, and how it ended.
         */
        get: operations["getApiV1ErrorsBulkByActionId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/errors/occurrences/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get one occurrence
         * @description One stored occurrence with its detail; frames still minified are mapped through the source maps uploaded since.
         */
        get: operations["getApiV1ErrorsOccurrencesById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/errors/merge": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Merge error groups
         * @description Folds the groups into the target: their fingerprints, occurrences and counts become the target’s, and their ids answer as the target from then on. Merging a group already merged into the target changes nothing.
         */
        post: operations["postApiV1ErrorsMerge"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/errors/{groupId}/unmerge": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Split a fingerprint out of a group
         * @description Moves one merged fingerprint (see the group’s `fingerprints`) back out into a group of its own.
         */
        post: operations["postApiV1ErrorsByGroupIdUnmerge"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/errors/{groupId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an error group
         * @description The group with its fingerprints, its latest occurrences (detail mapped through uploaded source maps) and the feedback tickets linked to it. An id merged away answers as the group that holds it now.
         */
        get: operations["getApiV1ErrorsByGroupId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Triage an error group
         * @description Sets the group’s status, its assignee (`null` unassigns) or both. With `"status": "resolved"` and `"resolve_in": "next_release"`, occurrences on the newest known release or older do not reopen it.
         */
        patch: operations["patchApiV1ErrorsByGroupId"];
        trace?: never;
    };
    "/api/v1/errors/{groupId}/feedback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * File a ticket for an error group
         * @description "Fix with agent": files a feedback ticket carrying the group’s error, which connected agents hear about. Once filed, the same ticket answers again (200).
         */
        post: operations["postApiV1ErrorsByGroupIdFeedback"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/error-alerts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the first alert rule
         * @description The workspace’s first error alert rule, as it was when a workspace had one (see /error-alerts/rules for all). Never carries the signing secret.
         */
        get: operations["getApiV1ErrorAlerts"];
        /**
         * Replace the first alert rule
         * @description Replaces the first rule’s triggers, room, URL and environments (creating it when there is none); its name and other filters stay.
         */
        put: operations["putApiV1ErrorAlerts"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/error-alerts/rules": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List alert rules
         * @description Every rule, oldest first: the first is the one /error-alerts speaks for.
         */
        get: operations["getApiV1ErrorAlertsRules"];
        put?: never;
        /** Add an alert rule */
        post: operations["postApiV1ErrorAlertsRules"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/error-alerts/rules/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get an alert rule */
        get: operations["getApiV1ErrorAlertsRulesById"];
        /** Replace an alert rule */
        put: operations["putApiV1ErrorAlertsRulesById"];
        post?: never;
        /** Delete an alert rule */
        delete: operations["deleteApiV1ErrorAlertsRulesById"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/event-types": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List event types
         * @description The catalog an event webhook endpoint subscribes from, each type with the JSON Schema of its delivery body (the Standard Webhooks envelope), and the test event "Send test event" delivers.
         */
        get: operations["getApiV1EventTypes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/event-webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List event webhook endpoints */
        get: operations["getApiV1EventWebhooks"];
        put?: never;
        /** Add an event webhook endpoint */
        post: operations["postApiV1EventWebhooks"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/event-webhooks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get an event webhook endpoint */
        get: operations["getApiV1EventWebhooksById"];
        /** Replace an event webhook endpoint */
        put: operations["putApiV1EventWebhooksById"];
        post?: never;
        /** Delete an event webhook endpoint */
        delete: operations["deleteApiV1EventWebhooksById"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/rooms": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List rooms
         * @description The workspace’s channels, agent rooms and ticket conversations, by kind then name. Direct messages are never listed.
         */
        get: operations["getApiV1Rooms"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/rooms/{roomId}/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a room’s messages
         * @description One page of the room’s messages, newest first; pass `next_before` back as `before` for the next page (like Slack’s conversations.history). A direct message, or a room of another workspace, answers 404.
         */
        get: operations["getApiV1RoomsByRoomIdMessages"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/widget/v1/config": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The widget’s settings
         * @description What the widget bundle asks when it loads. The public key may ride in `?key=` (a simple request: no preflight on every page view) or `X-Service-Tenant`; 404 for a key no workspace has. Cacheable for a minute.
         */
        get: operations["getWidgetV1Config"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/widget/v1/visitors": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Register a visitor
         * @description A new visitor of the workspace’s sites, whose token the widget then sends with its calls. `X-Service-Visitor` carries the visitor token (`vt_…`) from POST /widget/v1/visitors, which the widget keeps in localStorage. Rate-limited per key and per client address (429 with `Retry-After`).
         */
        post: operations["postWidgetV1Visitors"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/widget/v1/visitors/identity": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Identify a visitor
         * @description `service('identify', …)`: who the visitor is, so the Errors page names them (never by their token). Fields left out are cleared. `X-Service-Visitor` carries the visitor token (`vt_…`) from POST /widget/v1/visitors, which the widget keeps in localStorage. Required here: 401 without a known one. Rate-limited per visitor (429).
         */
        post: operations["postWidgetV1VisitorsIdentity"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/widget/v1/feedback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * File feedback
         * @description A visitor’s ticket, filed as the API files one (its conversation, its `feedback_filed` event), with an optional screenshot and console/network capture. `X-Service-Visitor` carries the visitor token (`vt_…`) from POST /widget/v1/visitors, which the widget keeps in localStorage. Optional here: the ticket is then linked to the visitor and its errors; an unknown one answers 401. Rate-limited per key and per visitor (or address) (429).
         */
        post: operations["postWidgetV1Feedback"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    "error.group.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Error group created
         * @description The first occurrence of a new error: the error writer made its group. Sent to each event webhook endpoint subscribed to `error.group.created` (Settings › Event webhooks), in order per error group.
         */
        post: operations["deliverEventWebhooksErrorGroupCreated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "error.group.regressed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Error group regressed
         * @description A resolved error group got a new occurrence and is unresolved again. Sent to each event webhook endpoint subscribed to `error.group.regressed` (Settings › Event webhooks), in order per error group.
         */
        post: operations["deliverEventWebhooksErrorGroupRegressed"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "error.group.resolved": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Error group resolved
         * @description Someone marked an error group resolved (its page, a bulk action or the API). Sent to each event webhook endpoint subscribed to `error.group.resolved` (Settings › Event webhooks), in order per error group.
         */
        post: operations["deliverEventWebhooksErrorGroupResolved"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "error.group.assigned": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Error group assigned
         * @description An error group got a new assignee, or was unassigned (assignee null). Sent to each event webhook endpoint subscribed to `error.group.assigned` (Settings › Event webhooks), in order per error group.
         */
        post: operations["deliverEventWebhooksErrorGroupAssigned"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "feedback.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Feedback filed
         * @description A feedback ticket was filed (the widget, the API, or "Fix with agent"). Sent to each event webhook endpoint subscribed to `feedback.created` (Settings › Event webhooks), in order per feedback.
         */
        post: operations["deliverEventWebhooksFeedbackCreated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "feedback.triaged": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Feedback triaged (status changed)
         * @description A ticket's status changed (new, triaged, closed, either way): `ticket.status` is the new status, `previous_status` the old one. By a member, through the API, or by a dispatch getting an agent to work (new to triaged). Sent to each event webhook endpoint subscribed to `feedback.triaged` (Settings › Event webhooks), in order per feedback.
         */
        post: operations["deliverEventWebhooksFeedbackTriaged"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "feedback.assigned": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Feedback assigned
         * @description A ticket got a new assignee, or was unassigned (assignee null). Sent to each event webhook endpoint subscribed to `feedback.assigned` (Settings › Event webhooks), in order per feedback.
         */
        post: operations["deliverEventWebhooksFeedbackAssigned"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "dispatch.started": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Dispatch started
         * @description A hosted coding agent started on a ticket (an agent task, or the issue assigned). Sent to each event webhook endpoint subscribed to `dispatch.started` (Settings › Event webhooks), in order per dispatch.
         */
        post: operations["deliverEventWebhooksDispatchStarted"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "dispatch.pr_opened": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Dispatch opened a pull request
         * @description The dispatch's agent opened a pull request (pr_url). Sent to each event webhook endpoint subscribed to `dispatch.pr_opened` (Settings › Event webhooks), in order per dispatch.
         */
        post: operations["deliverEventWebhooksDispatchPrOpened"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "dispatch.completed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Dispatch completed
         * @description The dispatch's agent finished its task. Sent to each event webhook endpoint subscribed to `dispatch.completed` (Settings › Event webhooks), in order per dispatch.
         */
        post: operations["deliverEventWebhooksDispatchCompleted"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "dispatch.failed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Dispatch failed
         * @description The dispatch failed; `error` says why. Sent to each event webhook endpoint subscribed to `dispatch.failed` (Settings › Event webhooks), in order per dispatch.
         */
        post: operations["deliverEventWebhooksDispatchFailed"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "agent.connected": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Local agent connected
         * @description A local agent's live connection opened after it was not connected. Sent to each event webhook endpoint subscribed to `agent.connected` (Settings › Event webhooks), in order per agent.
         */
        post: operations["deliverEventWebhooksAgentConnected"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "agent.disconnected": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Local agent disconnected
         * @description A local agent's last live connection closed. Sent to each event webhook endpoint subscribed to `agent.disconnected` (Settings › Event webhooks), in order per agent.
         */
        post: operations["deliverEventWebhooksAgentDisconnected"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "message.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Message posted
         * @description A member posted a message in one of the endpoint's chosen rooms (webhook, agent and system messages are never sent: the loop guard room hooks have). Sent to each event webhook endpoint subscribed to `message.created` (Settings › Event webhooks), in order per message.
         */
        post: operations["deliverEventWebhooksMessageCreated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    message_created: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Message posted in a room (room hooks)
         * @description Sent to each outgoing hook of the room (room Settings › Webhooks) when a member posts: never for webhook, agent or system messages. The message is as `GET /api/v1/rooms/{roomId}/messages` shows it.
         */
        post: operations["deliverRoomHooksMessageCreated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "error_group.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * New error (alert rule URL)
         * @description Sent to an error alert rule's URL when its `created` trigger fires (Settings › Error alerts). When that URL is also an event webhook endpoint subscribed to the matching event, it is sent once, as the event.
         */
        post: operations["deliverErrorAlertsErrorGroupCreated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "error_group.regressed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Regression: a resolved error is back (alert rule URL)
         * @description Sent to an error alert rule's URL when its `regressed` trigger fires (Settings › Error alerts). When that URL is also an event webhook endpoint subscribed to the matching event, it is sent once, as the event.
         */
        post: operations["deliverErrorAlertsErrorGroupRegressed"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "error_group.spiking": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Spike: more occurrences than the rule allows (alert rule URL)
         * @description Sent to an error alert rule's URL when its `spiking` trigger fires (Settings › Error alerts). When that URL is also an event webhook endpoint subscribed to the matching event, it is sent once, as the event.
         */
        post: operations["deliverErrorAlertsErrorGroupSpiking"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "webhook.test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Test event
         * @description Sent to one endpoint when someone presses "Send test event" on its page.
         */
        post: operations["deliverEventWebhooksWebhookTest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        Error: {
            error: {
                /** @description Stable, snake_case: what a client branches on. */
                code: string;
                /** @description A sentence a person can act on. */
                message: string;
                /** @description For a 422: each refused field and what is wrong with it. */
                fields?: {
                    [key: string]: string;
                };
            };
        };
        AlertRule: {
            /**
             * @description The room alerts are posted in; null: none.
             * @example room_01m95vcs448p8d8nkpkmbpan9e
             */
            room_id: string | null;
            /** @description Alert on a new error group. */
            new_group: boolean;
            /** @description Alert when a resolved group comes back. */
            regression: boolean;
            /**
             * @description Alert when a group has `count` occurrences within `minutes`.
             * @example {
             *       "count": 50,
             *       "minutes": 10
             *     }
             */
            frequency: {
                count: number;
                minutes: number;
            } | null;
            /**
             * @description Gets a signed POST per alert; null: none.
             * @example https://alerts.example.com/ferry
             */
            url: string | null;
            /** @description Null: every environment. */
            environments: string[] | null;
            /** @description The URL’s delivery state: `disabled` after 20 failures in a row (or a 410). */
            url_state: ("enabled" | "disabled") | null;
            /** @description Null while the workspace has no rule. */
            updated_at: string | null;
            /** @example alr_01m95vcs448p8d8nkpkmbpan9e */
            id: string;
            name: string;
            /** @description Null: every source. */
            sources: string[] | null;
            /** @description Null: every level. */
            levels: string[] | null;
            /** @description Null: every release. */
            releases: string[] | null;
            /** @description `key=value` filters (`*` matches anything); null: none. */
            tags: string[] | null;
            notify_member_ids: string[] | null;
            /** @description Files the group’s ticket for the agent. */
            hand_to_agent: boolean;
            /**
             * Format: date-time
             * @description ISO 8601, UTC.
             */
            created_at: string;
        };
        DiscordMessage: {
            /** @example msg_01m95vcs448p8d8nkpkmbpan9e */
            id: string;
            /** @constant */
            type: 0;
            /**
             * @description The room.
             * @example room_01m95vcs448p8d8nkpkmbpan9e
             */
            channel_id: string;
            webhook_id: string;
            author: {
                id: string;
                username: string;
                global_name: null;
                avatar: null;
                /** @constant */
                discriminator: "0000";
                /** @constant */
                public_flags: 0;
                /** @constant */
                flags: 0;
                /** @constant */
                bot: true;
            };
            content: string;
            /** @description As sent. */
            embeds: unknown[];
            attachments: {
                /** @example mfl_01m95vcs448p8d8nkpkmbpan9e */
                id: string;
                filename: string;
                size: number;
                /** @description Ferry’s file route, readable by the room’s members. */
                url: string;
                proxy_url: string;
                content_type: string;
            }[];
            components: unknown[];
            mentions: [
            ];
            mention_roles: [
            ];
            /** @constant */
            mention_everyone: false;
            /** @constant */
            pinned: false;
            /** @constant */
            tts: false;
            /** @constant */
            flags: 0;
            /** Format: date-time */
            timestamp: string;
            edited_timestamp: string | null;
        };
        DiscordPayload: {
            /** @example Build **#412** passed */
            content?: string;
            embeds?: {
                [key: string]: unknown;
            }[];
            /** @description Execute only: the display name. */
            username?: string;
            /** @description Execute only. */
            avatar_url?: string;
            /** @description Names for the multipart `files[n]` (by `id` n); in an edit, the existing files to keep. */
            attachments?: {
                id: string | number;
                filename?: string;
            }[];
            /** @description Multipart only: these fields as JSON, beside the `files[n]` parts. */
            payload_json?: string;
        };
        /** @description Discord’s Execute Webhook fields (`content` or `embeds`). */
        DiscordStylePayload: {
            content?: string;
            embeds?: {
                [key: string]: unknown;
            }[];
            /** @description The display name (alias of `sender`). */
            username?: string;
            avatar_url?: string;
        };
        Dispatch: {
            /** @example dsp_01m95vf7e1wft897bnf3hv3khf */
            id: string;
            repo_id: string;
            /** @enum {string} */
            status: "queued" | "issue_opened" | "agent_started" | "assigned" | "pr_opened" | "waiting_on_user" | "completed" | "failed";
            /** @description The coding agent’s own task state. */
            task_state: string | null;
            issue_url: string | null;
            pr_url: string | null;
            /** @description Why it failed; null unless `failed`. */
            error: string | null;
            /**
             * Format: date-time
             * @description ISO 8601, UTC.
             */
            created_at: string;
            /**
             * Format: date-time
             * @description ISO 8601, UTC.
             */
            updated_at: string;
        };
        ErrorGroup: {
            /** @example egr_01m95vcs448p8d8nkpkmbpan9e */
            id: string;
            /** @example TypeError */
            error_class: string;
            /** @example Cannot read properties of undefined (reading 'total') */
            latest_message: string;
            /** @enum {string} */
            source: "ruby" | "js" | "api" | "mobile" | "node" | "python" | "php";
            occurrence_count: number;
            /**
             * Format: date-time
             * @description ISO 8601, UTC.
             */
            first_seen_at: string;
            /**
             * Format: date-time
             * @description ISO 8601, UTC.
             */
            last_seen_at: string;
            /** @enum {string} */
            status: "unresolved" | "resolved" | "ignored";
            /** @description When the group last came back after being resolved; null once triaged again. */
            regressed_at: string | null;
            environments: string[];
            /** @description The member the group is assigned to; null: nobody. */
            assignee_id: string | null;
            first_release: string | null;
            last_release: string | null;
            /** @description Set by "resolve in next release": occurrences on it or older releases do not reopen the group. */
            resolved_in_release: string | null;
        };
        ErrorOccurrence: {
            error_class: string;
            message: string;
            /** @description Top frame first. */
            backtrace: string[];
            url: string | null;
            request_method: string | null;
            request_path: string | null;
            environment: string | null;
            app_version: string | null;
            context: {
                [key: string]: unknown;
            };
            /**
             * Format: date-time
             * @description ISO 8601, UTC.
             */
            occurred_at: string;
            /** @enum {string} */
            source: "ruby" | "js" | "api" | "mobile" | "node" | "python" | "php";
            /** @example err_01m95vf7e1wft897bnf3hv3khf */
            id: string;
            group_id: string;
            /**
             * Format: date-time
             * @description ISO 8601, UTC.
             */
            received_at: string;
            visitor_id: string | null;
            /** @description Frames with code (mapped through uploaded source maps), exception chain, breadcrumbs, tags, user, request; null for a report without them. */
            detail: {
                exceptions?: {
                    type: string;
                    value: string;
                    module?: string;
                    frames: {
                        function?: string;
                        file?: string;
                        module?: string;
                        line?: number;
                        column?: number;
                        in_app?: boolean;
                        pre_context?: string[];
                        context_line?: string;
                        post_context?: string[];
                        minified?: {
                            file: string;
                            line: number;
                            column: number;
                        };
                    }[];
                }[];
                frames?: {
                    function?: string;
                    file?: string;
                    module?: string;
                    line?: number;
                    column?: number;
                    in_app?: boolean;
                    pre_context?: string[];
                    context_line?: string;
                    post_context?: string[];
                    minified?: {
                        file: string;
                        line: number;
                        column: number;
                    };
                }[];
                breadcrumbs?: {
                    timestamp?: string;
                    type?: string;
                    category?: string;
                    level?: string;
                    message?: string;
                    data?: unknown;
                }[];
                tags?: {
                    [key: string]: string;
                };
                user?: {
                    [key: string]: string;
                };
                request?: {
                    method?: string;
                    url?: string;
                    query_string?: string;
                    headers?: [
                        string,
                        string
                    ][];
                };
                contexts?: {
                    [key: string]: {
                        [key: string]: string;
                    };
                };
                level?: string;
                logger?: string;
                server_name?: string;
                sdk?: {
                    name: string;
                    version?: string;
                };
                release?: string;
                dist?: string;
                debug_images?: {
                    code_file: string;
                    debug_id: string;
                }[];
                truncated?: string[];
            } | null;
        };
        ErrorReport: {
            /**
             * @description Cut to 200 characters; blank becomes `UnknownError`. Numbers and booleans are read as text.
             * @example NoMethodError
             */
            error_class?: string | number | boolean | null;
            /**
             * @description Cut to 1,000 characters.
             * @example undefined method 'total' for nil
             */
            message?: string | number | boolean | null;
            /**
             * @description Lines top frame first, as an array or one newline-separated string: the first 30 non-blank lines are kept, each cut to 400 characters, 8,000 characters in all.
             * @example [
             *       "app/models/order.rb:42:in 'total'"
             *     ]
             */
            backtrace?: ((string | number | boolean)[] | string) | null;
            /**
             * @description Cut to 600 characters.
             * @example https://shop.example.com/cart
             */
            url?: string | number | boolean | null;
            /**
             * @description Cut to 10 characters.
             * @example POST
             */
            request_method?: string | number | boolean | null;
            /**
             * @description Cut to 500 characters.
             * @example /cart/checkout
             */
            request_path?: string | number | boolean | null;
            /**
             * @description Cut to 40 characters.
             * @example production
             */
            environment?: string | number | boolean | null;
            /**
             * @description Cut to 40 characters.
             * @example 2.4.1
             */
            app_version?: string | number | boolean | null;
            /**
             * @description The first 30 keys, each cut to 60 characters; top-level strings cut to 500; nested objects and arrays kept as given.
             * @example {
             *       "order_id": 1042
             *     }
             */
            context?: {
                [key: string]: unknown;
            } | null;
            /**
             * @description Any parseable timestamp (ISO 8601, or epoch seconds or milliseconds); unparseable, or more than an hour in the future, becomes the time of receipt.
             * @example 2026-12-06T14:03:11Z
             */
            occurred_at?: string | number | null;
            /**
             * @description Where the error happened; any other value is recorded as `api`.
             * @example ruby
             * @enum {string}
             */
            source?: "ruby" | "js" | "api" | "mobile" | "node" | "python" | "php";
        };
        EventWebhookEndpoint: {
            /** @example owh_01m95vcs448p8d8nkpkmbpan9e */
            id: string;
            /** @example https://hooks.example.com/ferry */
            url: string;
            description: string;
            /** @description Types from GET /api/v1/event-types. */
            event_types: string[];
            /** @description Null: every environment. */
            environments: string[] | null;
            /** @description Null: every room. */
            room_ids: string[] | null;
            /** @description Null: no limit of its own. */
            max_per_second: number | null;
            /**
             * @description `disabled` after 20 failed deliveries in a row (or a 410).
             * @enum {string}
             */
            state: "enabled" | "disabled";
            disabled_reason: string | null;
            consecutive_failures: number;
            /** @description Until when the previous secret still signs beside the new one (a rotation’s overlap). */
            previous_secret_expires_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        Feedback: {
            /** @example fbk_01m95vcs448p8d8nkpkmbpan9e */
            id: string;
            /** @enum {string} */
            status: "new" | "triaged" | "closed";
            /** @description The member who triages it; null while nobody is assigned. */
            assignee: {
                id: string;
                name: string;
            } | null;
            title: string | null;
            note: string;
            reporter: {
                label: string | null;
                role: string | null;
                email: string | null;
            };
            page: {
                url: string | null;
                path: string | null;
                controller_action: string | null;
                viewport: {
                    width: number | null;
                    height: number | null;
                };
                partials: string[];
            };
            element: {
                selector: string | null;
                tag: string | null;
                text: string | null;
                outer_html: string | null;
            };
            conversation: {
                room_id: string;
            };
            /** @description The widget visitor who filed it; null for tickets filed through the API. */
            visitor_id: string | null;
            /** @description The error group it was filed from with "Fix with agent"; null otherwise. */
            error_group_id: string | null;
            /**
             * Format: date-time
             * @description ISO 8601, UTC.
             */
            created_at: string;
            /**
             * Format: date-time
             * @description ISO 8601, UTC.
             */
            updated_at: string;
        };
        /** @description SPEC.md’s fields. Slack, Mattermost, Discord and Microsoft Teams payloads are read too (their own message fields rendered as markdown), as JSON or as a form with the JSON in `payload`. */
        IncomingPost: {
            /**
             * @description Required. The message text; markdown and @-mentions work. Alias: Slack-style `text`; `body` wins if both are sent.
             * @example Deploy finished: **v2.4.1** is live
             */
            body: string;
            /** @description Alias of `body`. */
            text?: string;
            /**
             * @description A display name for this message; aliases `name`, `username`. Falls back to the key’s name, then its creator’s account name.
             * @example CI
             */
            sender?: string;
            /**
             * @description Post into this room instead of the key’s: a room id, or a channel name (`#general`); aliases `room_hashid`, `channel`. Only rooms the key’s creator has joined, never a direct-message room.
             * @example room_01m95vcs448p8d8nkpkmbpan9e
             */
            room?: string;
            /** @description A retry with the same key within 24 h posts nothing and answers the first message’s id. The `Idempotency-Key` header wins over the field. */
            idempotency_key?: string;
        };
        IncomingWebhookBody: components["schemas"]["IncomingPost"] | components["schemas"]["TeamsPayload"] | components["schemas"]["DiscordStylePayload"] | components["schemas"]["SlackPayload"];
        LinkedError: {
            group_id: string;
            error_class: string;
            message: string;
            /** @enum {string} */
            status: "unresolved" | "resolved" | "ignored";
            count: number;
            /**
             * Format: date-time
             * @description ISO 8601, UTC.
             */
            last_seen_at: string;
            /**
             * @description "visitor": the reporter hit this error within 10 minutes of the report; "hand": a member linked it.
             * @enum {string}
             */
            linked_by: "visitor" | "hand";
            visitor_occurrences: number;
        };
        Message: {
            /** @example msg_01m95vf7e1wft897bnf3hv3khf */
            id: string;
            room_id: string;
            body: string;
            sender: {
                /** @enum {string} */
                type: "member" | "webhook" | "agent" | "system";
                /** @description A member’s id, or the webhook key or agent the message came through. */
                id: string | null;
                name: string;
            };
            /**
             * Format: date-time
             * @description ISO 8601, UTC.
             */
            created_at: string;
        };
        Release: {
            /** @example shop@2.4.1 */
            version: string;
            url: string | null;
            /**
             * Format: date-time
             * @description ISO 8601, UTC.
             */
            dateCreated: string;
            dateStarted: string | null;
            dateReleased: string | null;
            newGroups: number;
            projects: {
                slug: string;
                name: string;
            }[];
        };
        Room: {
            /** @example room_01m95vcs448p8d8nkpkmbpan9e */
            id: string;
            /** @example support */
            name: string;
            /**
             * @description Never `dm`: direct messages are not readable with a token.
             * @enum {string}
             */
            kind: "channel" | "dm" | "conversation" | "agent";
        };
        /** @description Slack and Mattermost incoming-webhook payloads: `text`, `blocks` or `attachments` (Mattermost: or `props.card`). */
        SlackPayload: {
            /** @description mrkdwn; SPEC.md’s alias of `body`. */
            text?: string;
            blocks?: {
                [key: string]: unknown;
            }[];
            attachments?: {
                [key: string]: unknown;
            }[];
            /** @description Mattermost: `props.card` is shown too. */
            props?: {
                [key: string]: unknown;
            };
            /** @description The display name (alias of `sender`). */
            username?: string;
            icon_emoji?: string;
            icon_url?: string;
            /** @description Alias of `room`. */
            channel?: string;
        };
        /** @description Microsoft Teams: a MessageCard (`@type`), an Adaptive Card (`type: AdaptiveCard`), or a `message` wrapping cards, as Power Automate and Teams connectors send. */
        TeamsPayload: {
            /** @constant */
            "@type"?: "MessageCard";
            /** @enum {string} */
            type?: "AdaptiveCard" | "message";
            title?: string;
            text?: string;
            sections?: {
                [key: string]: unknown;
            }[];
            /** @description An Adaptive Card’s elements. */
            body?: {
                [key: string]: unknown;
            }[];
            /** @description A `message` wrapping cards: each `{contentType, content}`. */
            attachments?: {
                [key: string]: unknown;
            }[];
        };
        Ticket: {
            /** @example fbk_01m95vcs448p8d8nkpkmbpan9e */
            id: string;
            /** @enum {string} */
            status: "new" | "triaged" | "closed";
            /** @description The member who triages it; null while nobody is assigned. */
            assignee: {
                id: string;
                name: string;
            } | null;
            title: string | null;
            note: string;
            reporter: {
                label: string | null;
                role: string | null;
                email: string | null;
            };
            page: {
                url: string | null;
                path: string | null;
                controller_action: string | null;
                viewport: {
                    width: number | null;
                    height: number | null;
                };
                partials: string[];
            };
            element: {
                selector: string | null;
                tag: string | null;
                text: string | null;
                outer_html: string | null;
            };
            conversation: {
                room_id: string;
            };
            /** @description The widget visitor who filed it; null for tickets filed through the API. */
            visitor_id: string | null;
            /** @description The error group it was filed from with "Fix with agent"; null otherwise. */
            error_group_id: string | null;
            /**
             * Format: date-time
             * @description ISO 8601, UTC.
             */
            created_at: string;
            /**
             * Format: date-time
             * @description ISO 8601, UTC.
             */
            updated_at: string;
            /** @description Oldest first. */
            dispatches: components["schemas"]["Dispatch"][];
            linked_errors: components["schemas"]["LinkedError"][];
        };
    };
    responses: never;
    parameters: {
        /** @description Standard Webhooks: the delivery’s id, the same on every retry and "Send again" (deduplicate on it). */
        "webhook-id": string;
        /** @description Standard Webhooks: seconds since the epoch when it was signed. */
        "webhook-timestamp": string;
        /** @description Standard Webhooks: `v1,<base64 HMAC-SHA256>` of `id.timestamp.body`; during a secret rotation, two, space-separated. */
        "webhook-signature": string;
        /** @description The event type. */
        "X-Service-Event": string;
        /** @description `sha256=<hex HMAC-SHA256 of the body>` with the current secret. */
        "X-Service-Signature": string;
        /** @description During a rotation’s overlap only: the same with the previous secret. */
        "X-Service-Signature-Previous": string;
    };
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    postIngestErrors: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description One report or a batch, as JSON (at most 512 KB). Read by the route itself: nothing here refuses a field. SPEC.md: a report failing validation is dropped silently and the rest of the batch kept (202 with what was stored), and values are coerced and cut rather than refused. */
        requestBody: {
            content: {
                "application/json": components["schemas"]["ErrorReport"] | {
                    /** @description At most 10 reports are read; those past the tenth are ignored, and a report that cannot be read is dropped without failing the others. */
                    errors: components["schemas"]["ErrorReport"][];
                    /**
                     * @description For every report without its own.
                     * @example ruby
                     * @enum {string}
                     */
                    source?: "ruby" | "js" | "api" | "mobile" | "node" | "python" | "php";
                };
                "text/plain": components["schemas"]["ErrorReport"] | {
                    /** @description At most 10 reports are read; those past the tenth are ignored, and a report that cannot be read is dropped without failing the others. */
                    errors: components["schemas"]["ErrorReport"][];
                    /**
                     * @description For every report without its own.
                     * @example ruby
                     * @enum {string}
                     */
                    source?: "ruby" | "js" | "api" | "mobile" | "node" | "python" | "php";
                };
            };
        };
        responses: {
            /** @description The readable reports, stored. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * @description Reports stored; lower than the number sent when some were dropped or ignored.
                         * @example 1
                         */
                        accepted: number;
                        /**
                         * @description The stored occurrences’ ids.
                         * @example [
                         *       "err_01m95vf7e1wft897bnf3hv3khf"
                         *     ]
                         */
                        ids: string[];
                    };
                };
            };
            /** @description The body did not arrive in full within 30 s by default (`INGEST_BODY_TIMEOUT_MS`) of the request: `request_timeout`, with `Connection: close`. Send it again. */
            408: {
                headers: {
                    /** @description `close` */
                    Connection?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Over the workspace’s 120 reports a minute, shared by every source. */
            429: {
                headers: {
                    /** @description Seconds to wait: 60. */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description Stable, snake_case: what a client branches on. */
                            code: string;
                            /** @description A sentence a person can act on. */
                            message: string;
                            /** @description For a 422: each refused field and what is wrong with it. */
                            fields?: {
                                [key: string]: string;
                            };
                        };
                    };
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postApiByProjectEnvelope: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The DSN’s project id: any value; the key decides the workspace. */
                project: string;
            };
            cookie?: never;
        };
        /** @description A Sentry envelope (develop.sentry.dev/sdk/envelopes/): newline-separated JSON headers and items. Compressed bodies (Content-Encoding gzip, deflate, br) are undone; at most 1 MiB once decoded (413 past it). Without a key in the request, the envelope header’s `dsn` names it. */
        requestBody: {
            content: {
                "application/x-sentry-envelope": string;
                "text/plain;charset=UTF-8": string;
                "application/json": string;
            };
        };
        responses: {
            /** @description Received: the event’s id, or `{}`. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * @description The event id, 32 hex digits: the SDK’s own, or one made up when it sent none. Absent when the envelope held no event.
                         * @example fc6d8c0c43fc4630ad850ee518f1b9d0
                         */
                        id?: string;
                    };
                };
            };
            /** @description The body did not arrive in full within 30 s by default (`INGEST_BODY_TIMEOUT_MS`) of the request: `request_timeout`, with `Connection: close`. Send it again. */
            408: {
                headers: {
                    /** @description `close` */
                    Connection?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Over the workspace’s rate limit. */
            429: {
                headers: {
                    /** @description Seconds to wait: 60. */
                    "Retry-After"?: string;
                    /** @description Sentry's rate-limit header: `60:error;default:organization`. */
                    "X-Sentry-Rate-Limits"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description Stable, snake_case: what a client branches on. */
                            code: string;
                            /** @description A sentence a person can act on. */
                            message: string;
                            /** @description For a 422: each refused field and what is wrong with it. */
                            fields?: {
                                [key: string]: string;
                            };
                        };
                    };
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postApiByProjectStore: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The DSN’s project id: any value; the key decides the workspace. */
                project: string;
            };
            cookie?: never;
        };
        /** @description One Sentry event as JSON (develop.sentry.dev/sdk/event-payloads/), possibly base64 and zlib-compressed as older SDKs send it; Content-Encoding is undone; at most 1 MiB once decoded (413 past it). */
        requestBody: {
            content: {
                "application/x-sentry-envelope": string;
                "text/plain;charset=UTF-8": string;
                "application/json": string;
            };
        };
        responses: {
            /** @description Received: the event’s id, or `{}`. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * @description The event id, 32 hex digits: the SDK’s own, or one made up when it sent none. Absent when the envelope held no event.
                         * @example fc6d8c0c43fc4630ad850ee518f1b9d0
                         */
                        id?: string;
                    };
                };
            };
            /** @description The body did not arrive in full within 30 s by default (`INGEST_BODY_TIMEOUT_MS`) of the request: `request_timeout`, with `Connection: close`. Send it again. */
            408: {
                headers: {
                    /** @description `close` */
                    Connection?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Over the workspace’s rate limit. */
            429: {
                headers: {
                    /** @description Seconds to wait: 60. */
                    "Retry-After"?: string;
                    /** @description Sentry's rate-limit header: `60:error;default:organization`. */
                    "X-Sentry-Rate-Limits"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description Stable, snake_case: what a client branches on. */
                            code: string;
                            /** @description A sentence a person can act on. */
                            message: string;
                            /** @description For a 422: each refused field and what is wrong with it. */
                            fields?: {
                                [key: string]: string;
                            };
                        };
                    };
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getApi0OrganizationsByOrgChunkUpload: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The workspace’s slug: it must be the API token’s own workspace (403 otherwise). */
                org: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The upload options. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * @description Relative: sentry-cli resolves it against its SENTRY_URL.
                         * @example /api/0/organizations/acme/chunk-upload/
                         */
                        url: string;
                        chunkSize: number;
                        chunksPerRequest: number;
                        maxRequestSize: number;
                        maxFileSize: number;
                        concurrency: number;
                        /** @constant */
                        hashAlgorithm: "sha1";
                        /**
                         * @example [
                         *       "gzip"
                         *     ]
                         */
                        compression: string[];
                        /**
                         * @example [
                         *       "artifact_bundles",
                         *       "sources"
                         *     ]
                         */
                        accept: string[];
                    };
                };
            };
            /** @description An error, in the shape this route’s clients expect. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * @description A sentence a person can act on.
                         * @example This API token belongs to the workspace "acme": pass --org acme.
                         */
                        detail: string;
                    };
                };
            };
        };
    };
    postApi0OrganizationsByOrgChunkUpload: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The workspace’s slug: it must be the API token’s own workspace (403 otherwise). */
                org: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Stored. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            /** @description The body did not arrive in full within 5 min by default (`UPLOAD_BODY_TIMEOUT_MS`) of the request: `request_timeout`, with `Connection: close`. Send it again. */
            408: {
                headers: {
                    /** @description `close` */
                    Connection?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An error, in the shape this route’s clients expect. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * @description A sentence a person can act on.
                         * @example This API token belongs to the workspace "acme": pass --org acme.
                         */
                        detail: string;
                    };
                };
            };
        };
    };
    postApi0OrganizationsByOrgArtifactbundleAssemble: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The workspace’s slug: it must be the API token’s own workspace (403 otherwise). */
                org: string;
            };
            cookie?: never;
        };
        /** @description The bundle’s checksum and chunks, and the release it belongs to. A refused field answers 400 with `detail` naming it. */
        requestBody: {
            content: {
                "application/json": {
                    checksum: string;
                    chunks: string[];
                    projects?: string[];
                    version?: string;
                    dist?: string;
                };
            };
        };
        responses: {
            /** @description Missing chunks, or the bundle stored. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * @description `not_found`: upload `missingChunks`, then assemble again; `ok`: stored.
                         * @enum {string}
                         */
                        state: "ok" | "not_found";
                        missingChunks: string[];
                        detail: string | null;
                    };
                };
            };
            /** @description The body did not arrive in full within 60 s by default (`BODY_TIMEOUT_MS`) of the request: `request_timeout`, with `Connection: close`. Send it again. */
            408: {
                headers: {
                    /** @description `close` */
                    Connection?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An error, in the shape this route’s clients expect. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * @description A sentence a person can act on.
                         * @example This API token belongs to the workspace "acme": pass --org acme.
                         */
                        detail: string;
                    };
                };
            };
        };
    };
    postApi0OrganizationsByOrgReleases: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The workspace’s slug: it must be the API token’s own workspace (403 otherwise). */
                org: string;
            };
            cookie?: never;
        };
        /** @description The release’s version and dates. A refused field answers 400 with `detail` naming it. */
        requestBody: {
            content: {
                "application/json": {
                    version: string;
                    projects?: string[];
                    url?: string | null;
                    dateStarted?: string | null;
                    dateReleased?: string | null;
                };
            };
        };
        responses: {
            /** @description Created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Release"];
                };
            };
            /** @description Already Reported, as Sentry answers: the release exists. */
            208: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Release"];
                };
            };
            /** @description The body did not arrive in full within 60 s by default (`BODY_TIMEOUT_MS`) of the request: `request_timeout`, with `Connection: close`. Send it again. */
            408: {
                headers: {
                    /** @description `close` */
                    Connection?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An error, in the shape this route’s clients expect. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * @description A sentence a person can act on.
                         * @example This API token belongs to the workspace "acme": pass --org acme.
                         */
                        detail: string;
                    };
                };
            };
        };
    };
    getApi0OrganizationsByOrgReleasesByVersion: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The workspace’s slug: it must be the API token’s own workspace (403 otherwise). */
                org: string;
                /** @description The release’s version. */
                version: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The release. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Release"];
                };
            };
            /** @description An error, in the shape this route’s clients expect. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * @description A sentence a person can act on.
                         * @example This API token belongs to the workspace "acme": pass --org acme.
                         */
                        detail: string;
                    };
                };
            };
        };
    };
    putApi0OrganizationsByOrgReleasesByVersion: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The workspace’s slug: it must be the API token’s own workspace (403 otherwise). */
                org: string;
                /** @description The release’s version. */
                version: string;
            };
            cookie?: never;
        };
        /** @description The fields to change. A refused field answers 400 with `detail` naming it. */
        requestBody: {
            content: {
                "application/json": {
                    url?: string | null;
                    dateReleased?: string | null;
                    projects?: string[];
                };
            };
        };
        responses: {
            /** @description The release, updated. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Release"];
                };
            };
            /** @description The body did not arrive in full within 60 s by default (`BODY_TIMEOUT_MS`) of the request: `request_timeout`, with `Connection: close`. Send it again. */
            408: {
                headers: {
                    /** @description `close` */
                    Connection?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An error, in the shape this route’s clients expect. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * @description A sentence a person can act on.
                         * @example This API token belongs to the workspace "acme": pass --org acme.
                         */
                        detail: string;
                    };
                };
            };
        };
    };
    getApi0OrganizationsByOrgReleasesByVersionDeploys: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The workspace’s slug: it must be the API token’s own workspace (403 otherwise). */
                org: string;
                /** @description The release’s version. */
                version: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Its latest 100 deploys, the most recently finished first. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @example production */
                        environment: string;
                        name: string | null;
                        url: string | null;
                        dateStarted: string | null;
                        dateFinished: string | null;
                    }[];
                };
            };
            /** @description An error, in the shape this route’s clients expect. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * @description A sentence a person can act on.
                         * @example This API token belongs to the workspace "acme": pass --org acme.
                         */
                        detail: string;
                    };
                };
            };
        };
    };
    postApi0OrganizationsByOrgReleasesByVersionDeploys: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The workspace’s slug: it must be the API token’s own workspace (403 otherwise). */
                org: string;
                /** @description The release’s version. */
                version: string;
            };
            cookie?: never;
        };
        /** @description The deploy’s environment, name and dates. A refused field answers 400 with `detail` naming it. */
        requestBody: {
            content: {
                "application/json": {
                    environment: string;
                    name?: string | null;
                    url?: string | null;
                    dateStarted?: string | null;
                    dateFinished?: string | null;
                };
            };
        };
        responses: {
            /** @description Recorded. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @example production */
                        environment: string;
                        name: string | null;
                        url: string | null;
                        dateStarted: string | null;
                        dateFinished: string | null;
                    };
                };
            };
            /** @description The body did not arrive in full within 60 s by default (`BODY_TIMEOUT_MS`) of the request: `request_timeout`, with `Connection: close`. Send it again. */
            408: {
                headers: {
                    /** @description `close` */
                    Connection?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An error, in the shape this route’s clients expect. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * @description A sentence a person can act on.
                         * @example This API token belongs to the workspace "acme": pass --org acme.
                         */
                        detail: string;
                    };
                };
            };
        };
    };
    postWhInByKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The incoming webhook key, made on the room’s Integrations page: it is the whole credential. Treat the URL as a password; rotating the key ends the old URL at once. */
                key: string;
            };
            cookie?: never;
        };
        /** @description SPEC.md’s JSON object; also a form with the JSON in `payload` (or plain fields), as Slack senders post. Senders’ payloads are read leniently: a field of the wrong type or an unknown one is ignored rather than refused (Slack, Discord and Teams tools send extra and odd fields); a payload is refused only when its message fields render no text, or the text is over-long. */
        requestBody: {
            content: {
                "application/json": components["schemas"]["IncomingWebhookBody"];
                "application/x-www-form-urlencoded": components["schemas"]["IncomingWebhookBody"];
            };
        };
        responses: {
            /** @description An idempotent replay: nothing was posted, the id is the original message’s. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @example msg_01m95vcs448p8d8nkpkmbpan9e */
                        message_id: string;
                    };
                };
            };
            /** @description Posted: the new message’s id. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @example msg_01m95vcs448p8d8nkpkmbpan9e */
                        message_id: string;
                    };
                };
            };
            /** @description The body did not arrive in full within 30 s by default (`INGEST_BODY_TIMEOUT_MS`) of the request: `request_timeout`, with `Connection: close`. Send it again. */
            408: {
                headers: {
                    /** @description `close` */
                    Connection?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postWhInByKeySlack: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The incoming webhook key, made on the room’s Integrations page: it is the whole credential. Treat the URL as a password; rotating the key ends the old URL at once. */
                key: string;
            };
            cookie?: never;
        };
        /** @description A Slack or Mattermost incoming-webhook payload (SPEC.md’s fields work too), as JSON or as a form with the JSON in `payload`. Senders’ payloads are read leniently: a field of the wrong type or an unknown one is ignored rather than refused (Slack, Discord and Teams tools send extra and odd fields); a payload is refused only when its message fields render no text, or the text is over-long. */
        requestBody: {
            content: {
                "application/json": components["schemas"]["IncomingWebhookBody"];
                "application/x-www-form-urlencoded": components["schemas"]["IncomingWebhookBody"];
            };
        };
        responses: {
            /** @description Posted (or an idempotent replay: nothing posted again). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": "ok";
                };
            };
            /** @description Nothing to show (`no_text`), a message over 20,000 characters (`msg_too_long`), or a body that cannot be read or has a wrong field (`invalid_payload`). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": "invalid_payload" | "no_text" | "msg_too_long";
                };
            };
            /** @description An unknown, disabled or deleted key (`no_service`, Slack’s revoked URL), or a `channel`/`room` the key’s creator has not joined (`channel_not_found`). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": "no_service" | "channel_not_found";
                };
            };
            /** @description The body did not arrive in full within 30 s by default (`INGEST_BODY_TIMEOUT_MS`) of the request: `request_timeout`, with `Connection: close`. Send it again. */
            408: {
                headers: {
                    /** @description `close` */
                    Connection?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over 256 KB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": "payload_too_large";
                };
            };
            /** @description Too many posts under this key: wait `Retry-After` seconds. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": "rate_limited";
                };
            };
            /** @description Ferry failed to store the post. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": "rollup_error";
                };
            };
            /** @description Ferry cannot store posts right now: try again. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": "service_unavailable";
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postWhInByKeySlackHooksByToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The incoming webhook key, made on the room’s Integrations page: it is the whole credential. Treat the URL as a password; rotating the key ends the old URL at once. */
                key: string;
                /** @description Ignored: the key is the credential. */
                token: string;
            };
            cookie?: never;
        };
        /** @description A Slack or Mattermost incoming-webhook payload (SPEC.md’s fields work too), as JSON or as a form with the JSON in `payload`. Senders’ payloads are read leniently: a field of the wrong type or an unknown one is ignored rather than refused (Slack, Discord and Teams tools send extra and odd fields); a payload is refused only when its message fields render no text, or the text is over-long. */
        requestBody: {
            content: {
                "application/json": components["schemas"]["IncomingWebhookBody"];
                "application/x-www-form-urlencoded": components["schemas"]["IncomingWebhookBody"];
            };
        };
        responses: {
            /** @description Posted (or an idempotent replay: nothing posted again). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": "ok";
                };
            };
            /** @description Nothing to show (`no_text`), a message over 20,000 characters (`msg_too_long`), or a body that cannot be read or has a wrong field (`invalid_payload`). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": "invalid_payload" | "no_text" | "msg_too_long";
                };
            };
            /** @description An unknown, disabled or deleted key (`no_service`, Slack’s revoked URL), or a `channel`/`room` the key’s creator has not joined (`channel_not_found`). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": "no_service" | "channel_not_found";
                };
            };
            /** @description The body did not arrive in full within 30 s by default (`INGEST_BODY_TIMEOUT_MS`) of the request: `request_timeout`, with `Connection: close`. Send it again. */
            408: {
                headers: {
                    /** @description `close` */
                    Connection?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over 256 KB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": "payload_too_large";
                };
            };
            /** @description Too many posts under this key: wait `Retry-After` seconds. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": "rate_limited";
                };
            };
            /** @description Ferry failed to store the post. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": "rollup_error";
                };
            };
            /** @description Ferry cannot store posts right now: try again. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": "service_unavailable";
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postWhInByKeyGithub: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The incoming webhook key, made on the room’s Integrations page: it is the whole credential. Treat the URL as a password; rotating the key ends the old URL at once. */
                key: string;
            };
            cookie?: never;
        };
        /** @description GitHub’s event payload, at most 1 MB. */
        requestBody: {
            content: {
                "application/json": string;
                "application/x-www-form-urlencoded": string;
            };
        };
        responses: {
            /** @description The event was posted (`message_id`; a redelivery answers the same id), or a `ping` was heard (nothing posted). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @example msg_01m95vcs448p8d8nkpkmbpan9e */
                        message_id: string;
                    } | {
                        /** @constant */
                        ok: true;
                        /** @constant */
                        posted: false;
                        /** @description Which events are posted, for Recent Deliveries. */
                        message: string;
                    };
                };
            };
            /** @description An event or action that is not posted. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The key has a GitHub signing secret and `X-Hub-Signature-256` is missing or does not match. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description Stable, snake_case: what a client branches on. */
                            code: string;
                            /** @description A sentence a person can act on. */
                            message: string;
                            /** @description For a 422: each refused field and what is wrong with it. */
                            fields?: {
                                [key: string]: string;
                            };
                        };
                    };
                };
            };
            /** @description The body did not arrive in full within 30 s by default (`INGEST_BODY_TIMEOUT_MS`) of the request: `request_timeout`, with `Connection: close`. Send it again. */
            408: {
                headers: {
                    /** @description `close` */
                    Connection?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postWhInByKeyDiscord: {
        parameters: {
            query?: {
                /** @description `true` or `1`: answer with the message object. */
                wait?: string;
            };
            header?: never;
            path: {
                /** @description The incoming webhook key, made on the room’s Integrations page: it is the whole credential. Treat the URL as a password; rotating the key ends the old URL at once. */
                key: string;
            };
            cookie?: never;
        };
        /** @description Discord’s webhook payload: JSON, a form, or multipart with `payload_json` and the files as `files[n]`. */
        requestBody: {
            content: {
                "application/json": components["schemas"]["DiscordPayload"];
                "application/x-www-form-urlencoded": components["schemas"]["DiscordPayload"];
                "multipart/form-data": components["schemas"]["DiscordPayload"];
            };
        };
        responses: {
            /** @description With `?wait=true`: the message posted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DiscordMessage"];
                };
            };
            /** @description Posted. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The body did not arrive in full within 60 s by default (`BODY_TIMEOUT_MS`) of the request: `request_timeout`, with `Connection: close`. Send it again. */
            408: {
                headers: {
                    /** @description `close` */
                    Connection?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An error, in the shape this route’s clients expect. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @example Unknown Message */
                        message: string;
                        /**
                         * @description Discord’s JSON error code: 10008 Unknown Message, 10015 Unknown Webhook, 40005 request too large, 50006 empty message, 50035 Invalid Form Body, 50109 invalid JSON, 0 otherwise.
                         * @example 10008
                         */
                        code: number;
                        /** @description With 50035: each refused field, `{field: {_errors: [{code, message}]}}`. */
                        errors?: {
                            [key: string]: unknown;
                        };
                    } | {
                        /** @constant */
                        message: "You are being rate limited.";
                        /** @description Seconds to wait (also `Retry-After`). */
                        retry_after: number;
                        /** @constant */
                        global: false;
                    };
                };
            };
        };
    };
    postWhInByKeyDiscordByVersionWebhooksByWebhookIdByToken: {
        parameters: {
            query?: {
                /** @description `true` or `1`: answer with the message object. */
                wait?: string;
            };
            header?: never;
            path: {
                /** @description The incoming webhook key, made on the room’s Integrations page: it is the whole credential. Treat the URL as a password; rotating the key ends the old URL at once. */
                key: string;
                /** @description Discord’s API version, as discord.js puts it (`v1` to `v99`). */
                version: string;
                /** @description Whatever id the client was given: ignored. */
                webhookId: string;
                /** @description Whatever token the client was given: ignored (the key is the credential). */
                token: string;
            };
            cookie?: never;
        };
        /** @description Discord’s webhook payload: JSON, a form, or multipart with `payload_json` and the files as `files[n]`. */
        requestBody: {
            content: {
                "application/json": components["schemas"]["DiscordPayload"];
                "application/x-www-form-urlencoded": components["schemas"]["DiscordPayload"];
                "multipart/form-data": components["schemas"]["DiscordPayload"];
            };
        };
        responses: {
            /** @description With `?wait=true`: the message posted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DiscordMessage"];
                };
            };
            /** @description Posted. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The body did not arrive in full within 60 s by default (`BODY_TIMEOUT_MS`) of the request: `request_timeout`, with `Connection: close`. Send it again. */
            408: {
                headers: {
                    /** @description `close` */
                    Connection?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An error, in the shape this route’s clients expect. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @example Unknown Message */
                        message: string;
                        /**
                         * @description Discord’s JSON error code: 10008 Unknown Message, 10015 Unknown Webhook, 40005 request too large, 50006 empty message, 50035 Invalid Form Body, 50109 invalid JSON, 0 otherwise.
                         * @example 10008
                         */
                        code: number;
                        /** @description With 50035: each refused field, `{field: {_errors: [{code, message}]}}`. */
                        errors?: {
                            [key: string]: unknown;
                        };
                    } | {
                        /** @constant */
                        message: "You are being rate limited.";
                        /** @description Seconds to wait (also `Retry-After`). */
                        retry_after: number;
                        /** @constant */
                        global: false;
                    };
                };
            };
        };
    };
    getWhInByKeyDiscordByVersionWebhooksByWebhookIdByTokenMessagesByMessageId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The incoming webhook key, made on the room’s Integrations page: it is the whole credential. Treat the URL as a password; rotating the key ends the old URL at once. */
                key: string;
                /** @description Discord’s API version, as discord.js puts it (`v1` to `v99`). */
                version: string;
                /** @description Whatever id the client was given: ignored. */
                webhookId: string;
                /** @description Whatever token the client was given: ignored (the key is the credential). */
                token: string;
                /** @description A message this key posted (any other is 10008 Unknown Message). */
                messageId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The message. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DiscordMessage"];
                };
            };
            /** @description An error, in the shape this route’s clients expect. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @example Unknown Message */
                        message: string;
                        /**
                         * @description Discord’s JSON error code: 10008 Unknown Message, 10015 Unknown Webhook, 40005 request too large, 50006 empty message, 50035 Invalid Form Body, 50109 invalid JSON, 0 otherwise.
                         * @example 10008
                         */
                        code: number;
                        /** @description With 50035: each refused field, `{field: {_errors: [{code, message}]}}`. */
                        errors?: {
                            [key: string]: unknown;
                        };
                    } | {
                        /** @constant */
                        message: "You are being rate limited.";
                        /** @description Seconds to wait (also `Retry-After`). */
                        retry_after: number;
                        /** @constant */
                        global: false;
                    };
                };
            };
        };
    };
    deleteWhInByKeyDiscordByVersionWebhooksByWebhookIdByTokenMessagesByMessageId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The incoming webhook key, made on the room’s Integrations page: it is the whole credential. Treat the URL as a password; rotating the key ends the old URL at once. */
                key: string;
                /** @description Discord’s API version, as discord.js puts it (`v1` to `v99`). */
                version: string;
                /** @description Whatever id the client was given: ignored. */
                webhookId: string;
                /** @description Whatever token the client was given: ignored (the key is the credential). */
                token: string;
                /** @description A message this key posted (any other is 10008 Unknown Message). */
                messageId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description An error, in the shape this route’s clients expect. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @example Unknown Message */
                        message: string;
                        /**
                         * @description Discord’s JSON error code: 10008 Unknown Message, 10015 Unknown Webhook, 40005 request too large, 50006 empty message, 50035 Invalid Form Body, 50109 invalid JSON, 0 otherwise.
                         * @example 10008
                         */
                        code: number;
                        /** @description With 50035: each refused field, `{field: {_errors: [{code, message}]}}`. */
                        errors?: {
                            [key: string]: unknown;
                        };
                    } | {
                        /** @constant */
                        message: "You are being rate limited.";
                        /** @description Seconds to wait (also `Retry-After`). */
                        retry_after: number;
                        /** @constant */
                        global: false;
                    };
                };
            };
        };
    };
    patchWhInByKeyDiscordByVersionWebhooksByWebhookIdByTokenMessagesByMessageId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The incoming webhook key, made on the room’s Integrations page: it is the whole credential. Treat the URL as a password; rotating the key ends the old URL at once. */
                key: string;
                /** @description Discord’s API version, as discord.js puts it (`v1` to `v99`). */
                version: string;
                /** @description Whatever id the client was given: ignored. */
                webhookId: string;
                /** @description Whatever token the client was given: ignored (the key is the credential). */
                token: string;
                /** @description A message this key posted (any other is 10008 Unknown Message). */
                messageId: string;
            };
            cookie?: never;
        };
        /** @description Discord’s webhook payload: JSON, a form, or multipart with `payload_json` and the files as `files[n]`. */
        requestBody: {
            content: {
                "application/json": components["schemas"]["DiscordPayload"];
                "application/x-www-form-urlencoded": components["schemas"]["DiscordPayload"];
                "multipart/form-data": components["schemas"]["DiscordPayload"];
            };
        };
        responses: {
            /** @description The message as edited. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DiscordMessage"];
                };
            };
            /** @description The body did not arrive in full within 60 s by default (`BODY_TIMEOUT_MS`) of the request: `request_timeout`, with `Connection: close`. Send it again. */
            408: {
                headers: {
                    /** @description `close` */
                    Connection?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An error, in the shape this route’s clients expect. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @example Unknown Message */
                        message: string;
                        /**
                         * @description Discord’s JSON error code: 10008 Unknown Message, 10015 Unknown Webhook, 40005 request too large, 50006 empty message, 50035 Invalid Form Body, 50109 invalid JSON, 0 otherwise.
                         * @example 10008
                         */
                        code: number;
                        /** @description With 50035: each refused field, `{field: {_errors: [{code, message}]}}`. */
                        errors?: {
                            [key: string]: unknown;
                        };
                    } | {
                        /** @constant */
                        message: "You are being rate limited.";
                        /** @description Seconds to wait (also `Retry-After`). */
                        retry_after: number;
                        /** @constant */
                        global: false;
                    };
                };
            };
        };
    };
    getAgentsV1Whoami: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The workspace and its agents. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        workspace: {
                            /** @example wsp_01m95vcs448p8d8nkpkmbpan9e */
                            id: string;
                            /** @example Acme */
                            name: string;
                            /** @example acme */
                            slug: string;
                        };
                        agents: {
                            /** @example agt_01m95vcs448p8d8nkpkmbpan9e */
                            id: string;
                            /** @example shop */
                            name: string;
                            /** @description Stream open and a heartbeat within 60 s. */
                            online: boolean;
                        }[];
                    };
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getAgentsV1Stream: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The event stream. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postAgentsV1Heartbeat: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @example Working on: Pay button does nothing */
                    activity?: string;
                    /** @example claude 2.1.332 */
                    cli?: string;
                };
            };
        };
        responses: {
            /** @description Seen. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        ok: true;
                        /** @description Work items not acked yet: the stream sends them again now. */
                        unacked: number;
                    };
                };
            };
            /** @description The body did not arrive in full within 60 s by default (`BODY_TIMEOUT_MS`) of the request: `request_timeout`, with `Connection: close`. Send it again. */
            408: {
                headers: {
                    /** @description `close` */
                    Connection?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postAgentsV1Ack: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @example wrk_01m95vcs448p8d8nkpkmbpan9e */
                    work_id: string;
                };
            };
        };
        responses: {
            /** @description Acked. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        ok: true;
                    };
                };
            };
            /** @description The body did not arrive in full within 60 s by default (`BODY_TIMEOUT_MS`) of the request: `request_timeout`, with `Connection: close`. Send it again. */
            408: {
                headers: {
                    /** @description `close` */
                    Connection?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postAgentsV1Events: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    work_id: string;
                    /** @enum {string} */
                    kind: "progress" | "reply" | "proposal";
                    /** @default  */
                    text?: string;
                    proposal?: {
                        summary: string;
                        files: string[];
                        lines: number;
                    };
                };
            };
        };
        responses: {
            /** @description The message it became. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @example msg_01m95vcs448p8d8nkpkmbpan9e */
                        message_id: string;
                        /**
                         * @description Proposals only: decided by the workspace’s ship policy.
                         * @enum {string}
                         */
                        route?: "quick_fix" | "pr";
                        /**
                         * @description Proposals only: the rule that decided.
                         * @example 4 files > 3
                         */
                        reason?: string;
                        /** @constant */
                        ok: true;
                    };
                };
            };
            /** @description The body did not arrive in full within 60 s by default (`BODY_TIMEOUT_MS`) of the request: `request_timeout`, with `Connection: close`. Send it again. */
            408: {
                headers: {
                    /** @description `close` */
                    Connection?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getApiV1Repos: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every repository. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        repos: {
                            /**
                             * @description What a dispatch names as `repo`.
                             * @example rep_01m95vcs448p8d8nkpkmbpan9e
                             */
                            id: string;
                            /** @example acme/shop */
                            full_name: string;
                            /** @example main */
                            default_branch: string;
                            linked: boolean;
                            enabled: boolean;
                            /** @description Linked, enabled and reached by the GitHub App installation: check it before dispatching. */
                            dispatch_ready: boolean;
                        }[];
                    };
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postApiV1FeedbackByFeedbackIdDispatch: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                feedbackId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description The repository’s id from GET /api/v1/repos.
                     * @example rep_01m95vcs448p8d8nkpkmbpan9e
                     */
                    repo: string;
                };
            };
        };
        responses: {
            /** @description Started: the dispatch, `queued`. */
            202: {
                headers: {
                    /** @description The ticket to poll: `/api/v1/feedback/<id>`. */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Dispatch"];
                };
            };
            /** @description The body did not arrive in full within 60 s by default (`BODY_TIMEOUT_MS`) of the request: `request_timeout`, with `Connection: close`. Send it again. */
            408: {
                headers: {
                    /** @description `close` */
                    Connection?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getApiV1OpenapiJson: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description An OpenAPI 3.1 document. */
            200: {
                headers: {
                    /** @description `public, max-age=300`. */
                    "Cache-Control"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getApiV1Feedback: {
        parameters: {
            query?: {
                page?: number;
                /** @description Every status when absent or `all`. */
                status?: "new" | "triaged" | "closed" | "all";
                /** @description A member id, or `none` for the unassigned tickets. */
                assignee?: string;
                /** @description Text found in the note, the reporter’s label or email (any case). */
                q?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of tickets. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        feedback: components["schemas"]["Feedback"][];
                        page: number;
                        per_page: number;
                        has_more: boolean;
                    };
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postApiV1Feedback: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description The feedback itself.
                     * @example The total is wrong after a coupon.
                     */
                    note: string;
                    /** @description Names the ticket and its room; the note’s first words when absent. */
                    title?: string | null;
                    /** @description Who reported it. */
                    reporter?: {
                        label?: string | null;
                        role?: string | null;
                        email?: string | null;
                    } | null;
                    /** @description Where it was reported: the page and its viewport. */
                    page?: {
                        url?: string | null;
                        path?: string | null;
                        controller_action?: string | null;
                        viewport?: {
                            width?: number | null;
                            height?: number | null;
                        } | null;
                        /** @description The rendered templates, in order. */
                        partials?: string[] | null;
                    } | null;
                    /** @description The element the reporter picked on the page. */
                    element?: {
                        selector?: string | null;
                        tag?: string | null;
                        text?: string | null;
                        outer_html?: string | null;
                    } | null;
                };
            };
        };
        responses: {
            /** @description Filed. */
            201: {
                headers: {
                    /** @description The ticket: `/api/v1/feedback/<id>`. */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Ticket"];
                };
            };
            /** @description The body did not arrive in full within 60 s by default (`BODY_TIMEOUT_MS`) of the request: `request_timeout`, with `Connection: close`. Send it again. */
            408: {
                headers: {
                    /** @description `close` */
                    Connection?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getApiV1FeedbackById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The ticket with its dispatches (oldest first) and its linked error groups. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Ticket"];
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    patchApiV1FeedbackById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    status?: "new" | "triaged" | "closed";
                    assignee_id?: string | null;
                };
            };
        };
        responses: {
            /** @description The ticket as changed. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Ticket"];
                };
            };
            /** @description The body did not arrive in full within 60 s by default (`BODY_TIMEOUT_MS`) of the request: `request_timeout`, with `Connection: close`. Send it again. */
            408: {
                headers: {
                    /** @description `close` */
                    Connection?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getApiV1Errors: {
        parameters: {
            query?: {
                page?: number;
                source?: "ruby" | "js" | "api" | "mobile" | "node" | "python" | "php";
                status?: "unresolved" | "resolved" | "ignored" | "all";
                environment?: string;
                q?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of groups. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        groups: components["schemas"]["ErrorGroup"][];
                        page: number;
                        per_page: number;
                        total_groups: number;
                        /** @description Occurrences the workspace retains, across all groups. */
                        total_occurrences: number;
                    };
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postApiV1ErrorsBulk: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    action: "resolve" | "ignore" | "unresolve" | "assign" | "merge";
                    assignee_id?: string | null;
                    q?: string;
                    target_id?: string;
                    ids?: string[];
                };
            };
        };
        responses: {
            /** @description Done (or failed) before the answer. */
            200: {
                headers: {
                    /** @description The action to poll: `/api/v1/errors/bulk/<id>`. */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        action: {
                            /** @example ebk_01m95vcs448p8d8nkpkmbpan9e */
                            id: string;
                            /** @enum {string} */
                            action: "resolve" | "ignore" | "unresolve" | "assign" | "merge";
                            /** @enum {string} */
                            status: "queued" | "running" | "done" | "failed";
                            /** @description The search that picked the groups; null for ids. */
                            q: string | null;
                            /** @description `assign` only: who gets the groups; null unassigns. */
                            assignee_id?: string | null;
                            /** @description `merge` only: the group the others go into. */
                            target_id?: string;
                            /** @description Groups selected. */
                            total: number;
                            /** @description Groups done so far. */
                            processed: number;
                            /** @description Groups the action changed. */
                            changed: number;
                            /** @description Why it failed; null unless `failed`. */
                            error: string | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC.
                             */
                            created_at: string;
                            finished_at: string | null;
                        };
                    };
                };
            };
            /** @description Running as a job. */
            202: {
                headers: {
                    /** @description The action to poll: `/api/v1/errors/bulk/<id>`. */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        action: {
                            /** @example ebk_01m95vcs448p8d8nkpkmbpan9e */
                            id: string;
                            /** @enum {string} */
                            action: "resolve" | "ignore" | "unresolve" | "assign" | "merge";
                            /** @enum {string} */
                            status: "queued" | "running" | "done" | "failed";
                            /** @description The search that picked the groups; null for ids. */
                            q: string | null;
                            /** @description `assign` only: who gets the groups; null unassigns. */
                            assignee_id?: string | null;
                            /** @description `merge` only: the group the others go into. */
                            target_id?: string;
                            /** @description Groups selected. */
                            total: number;
                            /** @description Groups done so far. */
                            processed: number;
                            /** @description Groups the action changed. */
                            changed: number;
                            /** @description Why it failed; null unless `failed`. */
                            error: string | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC.
                             */
                            created_at: string;
                            finished_at: string | null;
                        };
                    };
                };
            };
            /** @description The body did not arrive in full within 60 s by default (`BODY_TIMEOUT_MS`) of the request: `request_timeout`, with `Connection: close`. Send it again. */
            408: {
                headers: {
                    /** @description `close` */
                    Connection?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getApiV1ErrorsBulkByActionId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                actionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The action. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        action: {
                            /** @example ebk_01m95vcs448p8d8nkpkmbpan9e */
                            id: string;
                            /** @enum {string} */
                            action: "resolve" | "ignore" | "unresolve" | "assign" | "merge";
                            /** @enum {string} */
                            status: "queued" | "running" | "done" | "failed";
                            /** @description The search that picked the groups; null for ids. */
                            q: string | null;
                            /** @description `assign` only: who gets the groups; null unassigns. */
                            assignee_id?: string | null;
                            /** @description `merge` only: the group the others go into. */
                            target_id?: string;
                            /** @description Groups selected. */
                            total: number;
                            /** @description Groups done so far. */
                            processed: number;
                            /** @description Groups the action changed. */
                            changed: number;
                            /** @description Why it failed; null unless `failed`. */
                            error: string | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC.
                             */
                            created_at: string;
                            finished_at: string | null;
                        };
                    };
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getApiV1ErrorsOccurrencesById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The occurrence. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOccurrence"];
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postApiV1ErrorsMerge: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    target_id: string;
                    /** @description The groups folded into the target. */
                    group_ids: string[];
                };
            };
        };
        responses: {
            /** @description The target as it is now. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        group: components["schemas"]["ErrorGroup"];
                        /** @description Groups merged by this call. */
                        merged: number;
                    };
                };
            };
            /** @description The body did not arrive in full within 60 s by default (`BODY_TIMEOUT_MS`) of the request: `request_timeout`, with `Connection: close`. Send it again. */
            408: {
                headers: {
                    /** @description `close` */
                    Connection?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postApiV1ErrorsByGroupIdUnmerge: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                groupId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    fingerprint: string;
                };
            };
        };
        responses: {
            /** @description The group it was split from, as it is now. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        group: {
                            /** @example egr_01m95vcs448p8d8nkpkmbpan9e */
                            id: string;
                            /** @example TypeError */
                            error_class: string;
                            /** @example Cannot read properties of undefined (reading 'total') */
                            latest_message: string;
                            /** @enum {string} */
                            source: "ruby" | "js" | "api" | "mobile" | "node" | "python" | "php";
                            occurrence_count: number;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC.
                             */
                            first_seen_at: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC.
                             */
                            last_seen_at: string;
                            /** @enum {string} */
                            status: "unresolved" | "resolved" | "ignored";
                            /** @description When the group last came back after being resolved; null once triaged again. */
                            regressed_at: string | null;
                            environments: string[];
                            /** @description The member the group is assigned to; null: nobody. */
                            assignee_id: string | null;
                            first_release: string | null;
                            last_release: string | null;
                            /** @description Set by "resolve in next release": occurrences on it or older releases do not reopen the group. */
                            resolved_in_release: string | null;
                            /** @description Its own fingerprint first, then the newest merged ones. */
                            fingerprints: {
                                fingerprint: string;
                                /** @description The fingerprint the group was made from. */
                                own: boolean;
                                merged_group_id: string | null;
                                error_class: string;
                                latest_message: string;
                                occurrence_count: number | null;
                                merged_at: string | null;
                                merged_by: string | null;
                            }[];
                            /** @description Merged fingerprints in all. */
                            merged_fingerprints: number;
                        };
                    };
                };
            };
            /** @description The body did not arrive in full within 60 s by default (`BODY_TIMEOUT_MS`) of the request: `request_timeout`, with `Connection: close`. Send it again. */
            408: {
                headers: {
                    /** @description `close` */
                    Connection?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getApiV1ErrorsByGroupId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                groupId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The group. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        group: {
                            /** @example egr_01m95vcs448p8d8nkpkmbpan9e */
                            id: string;
                            /** @example TypeError */
                            error_class: string;
                            /** @example Cannot read properties of undefined (reading 'total') */
                            latest_message: string;
                            /** @enum {string} */
                            source: "ruby" | "js" | "api" | "mobile" | "node" | "python" | "php";
                            occurrence_count: number;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC.
                             */
                            first_seen_at: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC.
                             */
                            last_seen_at: string;
                            /** @enum {string} */
                            status: "unresolved" | "resolved" | "ignored";
                            /** @description When the group last came back after being resolved; null once triaged again. */
                            regressed_at: string | null;
                            environments: string[];
                            /** @description The member the group is assigned to; null: nobody. */
                            assignee_id: string | null;
                            first_release: string | null;
                            last_release: string | null;
                            /** @description Set by "resolve in next release": occurrences on it or older releases do not reopen the group. */
                            resolved_in_release: string | null;
                            /** @description Its own fingerprint first, then the newest merged ones. */
                            fingerprints: {
                                fingerprint: string;
                                /** @description The fingerprint the group was made from. */
                                own: boolean;
                                merged_group_id: string | null;
                                error_class: string;
                                latest_message: string;
                                occurrence_count: number | null;
                                merged_at: string | null;
                                merged_by: string | null;
                            }[];
                            /** @description Merged fingerprints in all. */
                            merged_fingerprints: number;
                        };
                        occurrences: components["schemas"]["ErrorOccurrence"][];
                        feedback: {
                            /** @description Different people among the tickets’ reporters ("3 people reported this"). */
                            people: number;
                            /** @description All linked tickets. */
                            total: number;
                            /** @description The newest 50. */
                            tickets: {
                                id: string;
                                title: string | null;
                                /** @enum {string} */
                                status: "new" | "triaged" | "closed";
                                /** Format: date-time */
                                created_at: string;
                                /**
                                 * @description "visitor": its reporter hit this error within 10 minutes of the report; "hand": a member linked it.
                                 * @enum {string}
                                 */
                                linked_by: "visitor" | "hand";
                                visitor_occurrences: number;
                            }[];
                        };
                    };
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    patchApiV1ErrorsByGroupId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                groupId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    status?: "unresolved" | "resolved" | "ignored";
                    assignee_id?: string | null;
                    /** @constant */
                    resolve_in?: "next_release";
                };
            };
        };
        responses: {
            /** @description The group as changed. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        group: components["schemas"]["ErrorGroup"];
                    };
                };
            };
            /** @description The body did not arrive in full within 60 s by default (`BODY_TIMEOUT_MS`) of the request: `request_timeout`, with `Connection: close`. Send it again. */
            408: {
                headers: {
                    /** @description `close` */
                    Connection?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postApiV1ErrorsByGroupIdFeedback: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                groupId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The ticket filed before. */
            200: {
                headers: {
                    /** @description The ticket: `/api/v1/feedback/<id>`. */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @example fbk_01m95vcs448p8d8nkpkmbpan9e */
                        id: string;
                        /** @enum {string} */
                        status: "new" | "triaged" | "closed";
                        /** @description The member who triages it; null while nobody is assigned. */
                        assignee: {
                            id: string;
                            name: string;
                        } | null;
                        title: string | null;
                        note: string;
                        reporter: {
                            label: string | null;
                            role: string | null;
                            email: string | null;
                        };
                        page: {
                            url: string | null;
                            path: string | null;
                            controller_action: string | null;
                            viewport: {
                                width: number | null;
                                height: number | null;
                            };
                            partials: string[];
                        };
                        element: {
                            selector: string | null;
                            tag: string | null;
                            text: string | null;
                            outer_html: string | null;
                        };
                        conversation: {
                            room_id: string;
                        };
                        /** @description The widget visitor who filed it; null for tickets filed through the API. */
                        visitor_id: string | null;
                        /** @description The error group it was filed from with "Fix with agent"; null otherwise. */
                        error_group_id: string | null;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC.
                         */
                        created_at: string;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC.
                         */
                        updated_at: string;
                        /** @description Oldest first. */
                        dispatches: components["schemas"]["Dispatch"][];
                    };
                };
            };
            /** @description Filed. */
            201: {
                headers: {
                    /** @description The ticket: `/api/v1/feedback/<id>`. */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @example fbk_01m95vcs448p8d8nkpkmbpan9e */
                        id: string;
                        /** @enum {string} */
                        status: "new" | "triaged" | "closed";
                        /** @description The member who triages it; null while nobody is assigned. */
                        assignee: {
                            id: string;
                            name: string;
                        } | null;
                        title: string | null;
                        note: string;
                        reporter: {
                            label: string | null;
                            role: string | null;
                            email: string | null;
                        };
                        page: {
                            url: string | null;
                            path: string | null;
                            controller_action: string | null;
                            viewport: {
                                width: number | null;
                                height: number | null;
                            };
                            partials: string[];
                        };
                        element: {
                            selector: string | null;
                            tag: string | null;
                            text: string | null;
                            outer_html: string | null;
                        };
                        conversation: {
                            room_id: string;
                        };
                        /** @description The widget visitor who filed it; null for tickets filed through the API. */
                        visitor_id: string | null;
                        /** @description The error group it was filed from with "Fix with agent"; null otherwise. */
                        error_group_id: string | null;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC.
                         */
                        created_at: string;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC.
                         */
                        updated_at: string;
                        /** @description Oldest first. */
                        dispatches: components["schemas"]["Dispatch"][];
                    };
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getApiV1ErrorAlerts: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The rule. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * @description The room alerts are posted in; null: none.
                         * @example room_01m95vcs448p8d8nkpkmbpan9e
                         */
                        room_id: string | null;
                        /** @description Alert on a new error group. */
                        new_group: boolean;
                        /** @description Alert when a resolved group comes back. */
                        regression: boolean;
                        /**
                         * @description Alert when a group has `count` occurrences within `minutes`.
                         * @example {
                         *       "count": 50,
                         *       "minutes": 10
                         *     }
                         */
                        frequency: {
                            count: number;
                            minutes: number;
                        } | null;
                        /**
                         * @description Gets a signed POST per alert; null: none.
                         * @example https://alerts.example.com/ferry
                         */
                        url: string | null;
                        /** @description Null: every environment. */
                        environments: string[] | null;
                        /** @description The URL’s delivery state: `disabled` after 20 failures in a row (or a 410). */
                        url_state: ("enabled" | "disabled") | null;
                        /** @description Null while the workspace has no rule. */
                        updated_at: string | null;
                    };
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    putApiV1ErrorAlerts: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description The whole rule: a field left out is off (or "all" for a filter). A 422 names every bad field, including a room the workspace does not have and a URL refused under the SSRF rules. */
        requestBody: {
            content: {
                "application/json": {
                    /** @default null */
                    room_id?: string | null;
                    /** @default false */
                    new_group?: boolean;
                    /** @default false */
                    regression?: boolean;
                    /** @default null */
                    frequency?: {
                        count: number;
                        minutes: number;
                    } | null;
                    /** @default null */
                    url?: string | null;
                    /** @default null */
                    environments?: string[] | null;
                };
            };
        };
        responses: {
            /** @description The rule as saved, with the URL’s signing secret. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * @description The room alerts are posted in; null: none.
                         * @example room_01m95vcs448p8d8nkpkmbpan9e
                         */
                        room_id: string | null;
                        /** @description Alert on a new error group. */
                        new_group: boolean;
                        /** @description Alert when a resolved group comes back. */
                        regression: boolean;
                        /**
                         * @description Alert when a group has `count` occurrences within `minutes`.
                         * @example {
                         *       "count": 50,
                         *       "minutes": 10
                         *     }
                         */
                        frequency: {
                            count: number;
                            minutes: number;
                        } | null;
                        /**
                         * @description Gets a signed POST per alert; null: none.
                         * @example https://alerts.example.com/ferry
                         */
                        url: string | null;
                        /** @description Null: every environment. */
                        environments: string[] | null;
                        /** @description The URL’s delivery state: `disabled` after 20 failures in a row (or a 410). */
                        url_state: ("enabled" | "disabled") | null;
                        /** @description Null while the workspace has no rule. */
                        updated_at: string | null;
                        /** @description The URL’s secret: receivers verify the Standard Webhooks signature with it. Null without a URL. */
                        signing_secret: string | null;
                    };
                };
            };
            /** @description The body did not arrive in full within 60 s by default (`BODY_TIMEOUT_MS`) of the request: `request_timeout`, with `Connection: close`. Send it again. */
            408: {
                headers: {
                    /** @description `close` */
                    Connection?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getApiV1ErrorAlertsRules: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The rules. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        rules: components["schemas"]["AlertRule"][];
                    };
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postApiV1ErrorAlertsRules: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description The whole rule: a field left out is off (or "all" for a filter). A 422 names every bad field, including a room the workspace does not have and a URL refused under the SSRF rules. */
        requestBody: {
            content: {
                "application/json": {
                    /** @default null */
                    room_id?: string | null;
                    /** @default false */
                    new_group?: boolean;
                    /** @default false */
                    regression?: boolean;
                    /** @default null */
                    frequency?: {
                        count: number;
                        minutes: number;
                    } | null;
                    /** @default null */
                    url?: string | null;
                    /** @default null */
                    environments?: string[] | null;
                    /** @default Error alerts */
                    name?: string;
                    /** @default null */
                    sources?: ("ruby" | "js" | "api" | "mobile" | "node" | "python" | "php")[] | null;
                    /** @default null */
                    levels?: string[] | null;
                    /** @default null */
                    releases?: string[] | null;
                    /** @default null */
                    tags?: string[] | null;
                    /** @default null */
                    notify_member_ids?: string[] | null;
                    /** @default false */
                    hand_to_agent?: boolean;
                };
            };
        };
        responses: {
            /** @description The rule, with the URL’s signing secret. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * @description The room alerts are posted in; null: none.
                         * @example room_01m95vcs448p8d8nkpkmbpan9e
                         */
                        room_id: string | null;
                        /** @description Alert on a new error group. */
                        new_group: boolean;
                        /** @description Alert when a resolved group comes back. */
                        regression: boolean;
                        /**
                         * @description Alert when a group has `count` occurrences within `minutes`.
                         * @example {
                         *       "count": 50,
                         *       "minutes": 10
                         *     }
                         */
                        frequency: {
                            count: number;
                            minutes: number;
                        } | null;
                        /**
                         * @description Gets a signed POST per alert; null: none.
                         * @example https://alerts.example.com/ferry
                         */
                        url: string | null;
                        /** @description Null: every environment. */
                        environments: string[] | null;
                        /** @description The URL’s delivery state: `disabled` after 20 failures in a row (or a 410). */
                        url_state: ("enabled" | "disabled") | null;
                        /** @description Null while the workspace has no rule. */
                        updated_at: string | null;
                        /** @example alr_01m95vcs448p8d8nkpkmbpan9e */
                        id: string;
                        name: string;
                        /** @description Null: every source. */
                        sources: string[] | null;
                        /** @description Null: every level. */
                        levels: string[] | null;
                        /** @description Null: every release. */
                        releases: string[] | null;
                        /** @description `key=value` filters (`*` matches anything); null: none. */
                        tags: string[] | null;
                        notify_member_ids: string[] | null;
                        /** @description Files the group’s ticket for the agent. */
                        hand_to_agent: boolean;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC.
                         */
                        created_at: string;
                        /** @description The URL’s secret: receivers verify the Standard Webhooks signature with it. Null without a URL. */
                        signing_secret: string | null;
                    };
                };
            };
            /** @description The body did not arrive in full within 60 s by default (`BODY_TIMEOUT_MS`) of the request: `request_timeout`, with `Connection: close`. Send it again. */
            408: {
                headers: {
                    /** @description `close` */
                    Connection?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getApiV1ErrorAlertsRulesById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The rule. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AlertRule"];
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    putApiV1ErrorAlertsRulesById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        /** @description The whole rule: a field left out is off (or "all" for a filter). A 422 names every bad field, including a room the workspace does not have and a URL refused under the SSRF rules. */
        requestBody: {
            content: {
                "application/json": {
                    /** @default null */
                    room_id?: string | null;
                    /** @default false */
                    new_group?: boolean;
                    /** @default false */
                    regression?: boolean;
                    /** @default null */
                    frequency?: {
                        count: number;
                        minutes: number;
                    } | null;
                    /** @default null */
                    url?: string | null;
                    /** @default null */
                    environments?: string[] | null;
                    /** @default Error alerts */
                    name?: string;
                    /** @default null */
                    sources?: ("ruby" | "js" | "api" | "mobile" | "node" | "python" | "php")[] | null;
                    /** @default null */
                    levels?: string[] | null;
                    /** @default null */
                    releases?: string[] | null;
                    /** @default null */
                    tags?: string[] | null;
                    /** @default null */
                    notify_member_ids?: string[] | null;
                    /** @default false */
                    hand_to_agent?: boolean;
                };
            };
        };
        responses: {
            /** @description The rule as saved, with the URL’s signing secret. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * @description The room alerts are posted in; null: none.
                         * @example room_01m95vcs448p8d8nkpkmbpan9e
                         */
                        room_id: string | null;
                        /** @description Alert on a new error group. */
                        new_group: boolean;
                        /** @description Alert when a resolved group comes back. */
                        regression: boolean;
                        /**
                         * @description Alert when a group has `count` occurrences within `minutes`.
                         * @example {
                         *       "count": 50,
                         *       "minutes": 10
                         *     }
                         */
                        frequency: {
                            count: number;
                            minutes: number;
                        } | null;
                        /**
                         * @description Gets a signed POST per alert; null: none.
                         * @example https://alerts.example.com/ferry
                         */
                        url: string | null;
                        /** @description Null: every environment. */
                        environments: string[] | null;
                        /** @description The URL’s delivery state: `disabled` after 20 failures in a row (or a 410). */
                        url_state: ("enabled" | "disabled") | null;
                        /** @description Null while the workspace has no rule. */
                        updated_at: string | null;
                        /** @example alr_01m95vcs448p8d8nkpkmbpan9e */
                        id: string;
                        name: string;
                        /** @description Null: every source. */
                        sources: string[] | null;
                        /** @description Null: every level. */
                        levels: string[] | null;
                        /** @description Null: every release. */
                        releases: string[] | null;
                        /** @description `key=value` filters (`*` matches anything); null: none. */
                        tags: string[] | null;
                        notify_member_ids: string[] | null;
                        /** @description Files the group’s ticket for the agent. */
                        hand_to_agent: boolean;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC.
                         */
                        created_at: string;
                        /** @description The URL’s secret: receivers verify the Standard Webhooks signature with it. Null without a URL. */
                        signing_secret: string | null;
                    };
                };
            };
            /** @description The body did not arrive in full within 60 s by default (`BODY_TIMEOUT_MS`) of the request: `request_timeout`, with `Connection: close`. Send it again. */
            408: {
                headers: {
                    /** @description `close` */
                    Connection?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteApiV1ErrorAlertsRulesById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getApiV1EventTypes: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The catalog. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        event_types: {
                            /**
                             * @example error.group.created
                             * @enum {string}
                             */
                            type: "error.group.created" | "error.group.regressed" | "error.group.resolved" | "error.group.assigned" | "feedback.created" | "feedback.triaged" | "feedback.assigned" | "dispatch.started" | "dispatch.pr_opened" | "dispatch.completed" | "dispatch.failed" | "agent.connected" | "agent.disconnected" | "message.created";
                            /** @example Error group created */
                            title: string;
                            description: string;
                            resource: string;
                            /** @description JSON Schema (draft 2020-12) of the whole delivery body. */
                            schema: {
                                [key: string]: unknown;
                            };
                        }[];
                        test_event: {
                            /** @example Error group created */
                            title: string;
                            description: string;
                            /** @description JSON Schema (draft 2020-12) of the whole delivery body. */
                            schema: {
                                [key: string]: unknown;
                            };
                            /** @constant */
                            type: "webhook.test";
                        };
                    };
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getApiV1EventWebhooks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every endpoint, never its secret. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        endpoints: components["schemas"]["EventWebhookEndpoint"][];
                    };
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postApiV1EventWebhooks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description The whole endpoint: its URL (public under the SSRF rules), the event types it receives and its filters. */
        requestBody: {
            content: {
                "application/json": {
                    url: string;
                    /** @default  */
                    description?: string;
                    event_types: string[];
                    /** @default null */
                    environments?: string[] | null;
                    /** @default null */
                    room_ids?: string[] | null;
                    /** @default null */
                    max_per_second?: number | null;
                };
            };
        };
        responses: {
            /** @description The endpoint, with its signing secret: shown this once. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @example owh_01m95vcs448p8d8nkpkmbpan9e */
                        id: string;
                        /** @example https://hooks.example.com/ferry */
                        url: string;
                        description: string;
                        /** @description Types from GET /api/v1/event-types. */
                        event_types: string[];
                        /** @description Null: every environment. */
                        environments: string[] | null;
                        /** @description Null: every room. */
                        room_ids: string[] | null;
                        /** @description Null: no limit of its own. */
                        max_per_second: number | null;
                        /**
                         * @description `disabled` after 20 failed deliveries in a row (or a 410).
                         * @enum {string}
                         */
                        state: "enabled" | "disabled";
                        disabled_reason: string | null;
                        consecutive_failures: number;
                        /** @description Until when the previous secret still signs beside the new one (a rotation’s overlap). */
                        previous_secret_expires_at: string | null;
                        /** Format: date-time */
                        created_at: string;
                        /** @description Receivers verify the Standard Webhooks signature with it. */
                        signing_secret: string;
                    };
                };
            };
            /** @description The body did not arrive in full within 60 s by default (`BODY_TIMEOUT_MS`) of the request: `request_timeout`, with `Connection: close`. Send it again. */
            408: {
                headers: {
                    /** @description `close` */
                    Connection?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getApiV1EventWebhooksById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventWebhookEndpoint"];
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    putApiV1EventWebhooksById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        /** @description The whole endpoint: its URL (public under the SSRF rules), the event types it receives and its filters. */
        requestBody: {
            content: {
                "application/json": {
                    url: string;
                    /** @default  */
                    description?: string;
                    event_types: string[];
                    /** @default null */
                    environments?: string[] | null;
                    /** @default null */
                    room_ids?: string[] | null;
                    /** @default null */
                    max_per_second?: number | null;
                };
            };
        };
        responses: {
            /** @description The endpoint as saved. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventWebhookEndpoint"];
                };
            };
            /** @description The body did not arrive in full within 60 s by default (`BODY_TIMEOUT_MS`) of the request: `request_timeout`, with `Connection: close`. Send it again. */
            408: {
                headers: {
                    /** @description `close` */
                    Connection?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteApiV1EventWebhooksById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getApiV1Rooms: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every readable room. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        rooms: components["schemas"]["Room"][];
                    };
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getApiV1RoomsByRoomIdMessages: {
        parameters: {
            query?: {
                /** @description Messages per page. */
                limit?: number;
                /** @description The previous page’s `next_before`: the messages older than it. */
                before?: string;
            };
            header?: never;
            path: {
                roomId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of messages. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        messages: components["schemas"]["Message"][];
                        /** @description The cursor for older messages; null on the last page. */
                        next_before: string | null;
                    };
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getWidgetV1Config: {
        parameters: {
            query?: {
                /** @description The workspace’s public key; without it, `X-Service-Tenant` is read. */
                key?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The workspace’s widget switches. */
            200: {
                headers: {
                    /** @description `public, max-age=60`. */
                    "Cache-Control"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Whether the widget records console and network activity to send with feedback (the workspace’s setting). */
                        capture: boolean;
                    };
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postWidgetV1Visitors: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The new visitor and its token. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        visitor: {
                            /** @example vis_01m95vcs448p8d8nkpkmbpan9e */
                            id: string;
                            /**
                             * @description Shown this once and stored nowhere: send it as `X-Service-Visitor`.
                             * @example vt_8Jd0s1Qp…
                             */
                            token: string;
                        };
                    };
                };
            };
            /** @description Over a rate limit. */
            429: {
                headers: {
                    /** @description Seconds to wait. */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description Stable, snake_case: what a client branches on. */
                            code: string;
                            /** @description A sentence a person can act on. */
                            message: string;
                            /** @description For a 422: each refused field and what is wrong with it. */
                            fields?: {
                                [key: string]: string;
                            };
                        };
                    };
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postWidgetV1VisitorsIdentity: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description The identity, read by the route after the key and visitor checks: a refused field answers 422 naming it. */
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description How the Errors page and tickets name the visitor.
                     * @example Ada L.
                     */
                    label?: string;
                    /** @example admin */
                    role?: string;
                    /** @example ada@example.com */
                    email?: "" | string;
                };
            };
        };
        responses: {
            /** @description Recorded. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The body did not arrive in full within 60 s by default (`BODY_TIMEOUT_MS`) of the request: `request_timeout`, with `Connection: close`. Send it again. */
            408: {
                headers: {
                    /** @description `close` */
                    Connection?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Over a rate limit. */
            429: {
                headers: {
                    /** @description Seconds to wait. */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description Stable, snake_case: what a client branches on. */
                            code: string;
                            /** @description A sentence a person can act on. */
                            message: string;
                            /** @description For a 422: each refused field and what is wrong with it. */
                            fields?: {
                                [key: string]: string;
                            };
                        };
                    };
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postWidgetV1Feedback: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description The ticket as JSON (the screenshot inside it as a data URL; up to about 2.9 MB in all), read by the route after the key, visitor and rate-limit checks: a refused field answers 422 naming it. */
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description The feedback itself.
                     * @example The total is wrong after a coupon.
                     */
                    note: string;
                    /** @description Names the ticket and its room; the note’s first words when absent. */
                    title?: string | null;
                    /** @description Who reported it. */
                    reporter?: {
                        label?: string | null;
                        role?: string | null;
                        email?: string | null;
                    } | null;
                    /** @description Where it was reported: the page and its viewport. */
                    page?: {
                        url?: string | null;
                        path?: string | null;
                        controller_action?: string | null;
                        viewport?: {
                            width?: number | null;
                            height?: number | null;
                        } | null;
                        /** @description The rendered templates, in order. */
                        partials?: string[] | null;
                    } | null;
                    /** @description The element the reporter picked on the page. */
                    element?: {
                        selector?: string | null;
                        tag?: string | null;
                        text?: string | null;
                        outer_html?: string | null;
                    } | null;
                    /**
                     * @description A redacted capture of the page as a base64 data URL: PNG, JPEG or WebP, at most 2 MB (413 past it, 415 another type, 422 unreadable).
                     * @example data:image/png;base64,iVBORw0KGgo…
                     */
                    screenshot?: string | null;
                    /** @description The console and network activity before the report; kept only when the workspace has capture on, scrubbed and capped at 64 KB. */
                    evidence?: {
                        captured_at: number;
                        /** @default [] */
                        console?: {
                            t: number;
                            /** @enum {string} */
                            level: "log" | "info" | "warn" | "error" | "debug";
                            text: string;
                        }[];
                        /** @default [] */
                        network?: {
                            t: number;
                            /** @enum {string} */
                            kind: "fetch" | "xhr";
                            method: string;
                            url: string;
                            status: number;
                            ms: number;
                            /** @default null */
                            size?: number | null;
                        }[];
                        /** @default [] */
                        errors?: {
                            t: number;
                            /** @enum {string} */
                            kind: "error" | "rejection";
                            name: string;
                            message: string;
                            stack: string;
                        }[];
                        /** @default [] */
                        navigation?: {
                            t: number;
                            /** @enum {string} */
                            kind: "push" | "replace" | "pop" | "hash";
                            url: string;
                        }[];
                        /** @default {} */
                        dropped?: {
                            console?: number;
                            network?: number;
                            errors?: number;
                            navigation?: number;
                        };
                    } | null;
                };
            };
        };
        responses: {
            /** @description Filed: the ticket’s id. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * @description The ticket’s id.
                         * @example fbk_01m95vf7e1wft897bnf3hv3khf
                         */
                        id: string;
                    };
                };
            };
            /** @description The body did not arrive in full within 5 min by default (`UPLOAD_BODY_TIMEOUT_MS`) of the request: `request_timeout`, with `Connection: close`. Send it again. */
            408: {
                headers: {
                    /** @description `close` */
                    Connection?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Over a rate limit. */
            429: {
                headers: {
                    /** @description Seconds to wait. */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description Stable, snake_case: what a client branches on. */
                            code: string;
                            /** @description A sentence a person can act on. */
                            message: string;
                            /** @description For a 422: each refused field and what is wrong with it. */
                            fields?: {
                                [key: string]: string;
                            };
                        };
                    };
                };
            };
            /** @description An error: the status and `error.code` say which. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deliverEventWebhooksErrorGroupCreated: {
        parameters: {
            query?: never;
            header: {
                /** @description Standard Webhooks: the delivery’s id, the same on every retry and "Send again" (deduplicate on it). */
                "webhook-id": components["parameters"]["webhook-id"];
                /** @description Standard Webhooks: seconds since the epoch when it was signed. */
                "webhook-timestamp": components["parameters"]["webhook-timestamp"];
                /** @description Standard Webhooks: `v1,<base64 HMAC-SHA256>` of `id.timestamp.body`; during a secret rotation, two, space-separated. */
                "webhook-signature": components["parameters"]["webhook-signature"];
                /** @description The event type. */
                "X-Service-Event": components["parameters"]["X-Service-Event"];
                /** @description `sha256=<hex HMAC-SHA256 of the body>` with the current secret. */
                "X-Service-Signature": components["parameters"]["X-Service-Signature"];
                /** @description During a rotation’s overlap only: the same with the previous secret. */
                "X-Service-Signature-Previous"?: components["parameters"]["X-Service-Signature-Previous"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "error.group.created";
                    /** Format: date-time */
                    timestamp: string;
                    data: {
                        group: {
                            id: string;
                            error_class: string;
                            latest_message: string;
                            /** @enum {string} */
                            status: "unresolved" | "resolved" | "ignored";
                            occurrence_count: number;
                            /** Format: date-time */
                            first_seen_at: string;
                            /** Format: date-time */
                            last_seen_at: string;
                            environments: string[];
                        };
                        environment: string | null;
                    };
                };
            };
        };
        responses: {
            /** @description Any 2xx is a success. Anything else, or no answer within 10 s, is retried on the schedule; 410 disables the endpoint. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    deliverEventWebhooksErrorGroupRegressed: {
        parameters: {
            query?: never;
            header: {
                /** @description Standard Webhooks: the delivery’s id, the same on every retry and "Send again" (deduplicate on it). */
                "webhook-id": components["parameters"]["webhook-id"];
                /** @description Standard Webhooks: seconds since the epoch when it was signed. */
                "webhook-timestamp": components["parameters"]["webhook-timestamp"];
                /** @description Standard Webhooks: `v1,<base64 HMAC-SHA256>` of `id.timestamp.body`; during a secret rotation, two, space-separated. */
                "webhook-signature": components["parameters"]["webhook-signature"];
                /** @description The event type. */
                "X-Service-Event": components["parameters"]["X-Service-Event"];
                /** @description `sha256=<hex HMAC-SHA256 of the body>` with the current secret. */
                "X-Service-Signature": components["parameters"]["X-Service-Signature"];
                /** @description During a rotation’s overlap only: the same with the previous secret. */
                "X-Service-Signature-Previous"?: components["parameters"]["X-Service-Signature-Previous"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "error.group.regressed";
                    /** Format: date-time */
                    timestamp: string;
                    data: {
                        group: {
                            id: string;
                            error_class: string;
                            latest_message: string;
                            /** @enum {string} */
                            status: "unresolved" | "resolved" | "ignored";
                            occurrence_count: number;
                            /** Format: date-time */
                            first_seen_at: string;
                            /** Format: date-time */
                            last_seen_at: string;
                            environments: string[];
                        };
                        environment: string | null;
                    };
                };
            };
        };
        responses: {
            /** @description Any 2xx is a success. Anything else, or no answer within 10 s, is retried on the schedule; 410 disables the endpoint. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    deliverEventWebhooksErrorGroupResolved: {
        parameters: {
            query?: never;
            header: {
                /** @description Standard Webhooks: the delivery’s id, the same on every retry and "Send again" (deduplicate on it). */
                "webhook-id": components["parameters"]["webhook-id"];
                /** @description Standard Webhooks: seconds since the epoch when it was signed. */
                "webhook-timestamp": components["parameters"]["webhook-timestamp"];
                /** @description Standard Webhooks: `v1,<base64 HMAC-SHA256>` of `id.timestamp.body`; during a secret rotation, two, space-separated. */
                "webhook-signature": components["parameters"]["webhook-signature"];
                /** @description The event type. */
                "X-Service-Event": components["parameters"]["X-Service-Event"];
                /** @description `sha256=<hex HMAC-SHA256 of the body>` with the current secret. */
                "X-Service-Signature": components["parameters"]["X-Service-Signature"];
                /** @description During a rotation’s overlap only: the same with the previous secret. */
                "X-Service-Signature-Previous"?: components["parameters"]["X-Service-Signature-Previous"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "error.group.resolved";
                    /** Format: date-time */
                    timestamp: string;
                    data: {
                        group: {
                            id: string;
                            error_class: string;
                            latest_message: string;
                            /** @enum {string} */
                            status: "unresolved" | "resolved" | "ignored";
                            occurrence_count: number;
                            /** Format: date-time */
                            first_seen_at: string;
                            /** Format: date-time */
                            last_seen_at: string;
                            environments: string[];
                        };
                        actor: {
                            /** @enum {string} */
                            type: "member" | "api" | "system";
                            id: string | null;
                            name: string | null;
                        };
                    };
                };
            };
        };
        responses: {
            /** @description Any 2xx is a success. Anything else, or no answer within 10 s, is retried on the schedule; 410 disables the endpoint. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    deliverEventWebhooksErrorGroupAssigned: {
        parameters: {
            query?: never;
            header: {
                /** @description Standard Webhooks: the delivery’s id, the same on every retry and "Send again" (deduplicate on it). */
                "webhook-id": components["parameters"]["webhook-id"];
                /** @description Standard Webhooks: seconds since the epoch when it was signed. */
                "webhook-timestamp": components["parameters"]["webhook-timestamp"];
                /** @description Standard Webhooks: `v1,<base64 HMAC-SHA256>` of `id.timestamp.body`; during a secret rotation, two, space-separated. */
                "webhook-signature": components["parameters"]["webhook-signature"];
                /** @description The event type. */
                "X-Service-Event": components["parameters"]["X-Service-Event"];
                /** @description `sha256=<hex HMAC-SHA256 of the body>` with the current secret. */
                "X-Service-Signature": components["parameters"]["X-Service-Signature"];
                /** @description During a rotation’s overlap only: the same with the previous secret. */
                "X-Service-Signature-Previous"?: components["parameters"]["X-Service-Signature-Previous"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "error.group.assigned";
                    /** Format: date-time */
                    timestamp: string;
                    data: {
                        group: {
                            id: string;
                            error_class: string;
                            latest_message: string;
                            /** @enum {string} */
                            status: "unresolved" | "resolved" | "ignored";
                            occurrence_count: number;
                            /** Format: date-time */
                            first_seen_at: string;
                            /** Format: date-time */
                            last_seen_at: string;
                            environments: string[];
                        };
                        assignee: {
                            id: string;
                            name: string;
                        } | null;
                        actor: {
                            /** @enum {string} */
                            type: "member" | "api" | "system";
                            id: string | null;
                            name: string | null;
                        };
                    };
                };
            };
        };
        responses: {
            /** @description Any 2xx is a success. Anything else, or no answer within 10 s, is retried on the schedule; 410 disables the endpoint. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    deliverEventWebhooksFeedbackCreated: {
        parameters: {
            query?: never;
            header: {
                /** @description Standard Webhooks: the delivery’s id, the same on every retry and "Send again" (deduplicate on it). */
                "webhook-id": components["parameters"]["webhook-id"];
                /** @description Standard Webhooks: seconds since the epoch when it was signed. */
                "webhook-timestamp": components["parameters"]["webhook-timestamp"];
                /** @description Standard Webhooks: `v1,<base64 HMAC-SHA256>` of `id.timestamp.body`; during a secret rotation, two, space-separated. */
                "webhook-signature": components["parameters"]["webhook-signature"];
                /** @description The event type. */
                "X-Service-Event": components["parameters"]["X-Service-Event"];
                /** @description `sha256=<hex HMAC-SHA256 of the body>` with the current secret. */
                "X-Service-Signature": components["parameters"]["X-Service-Signature"];
                /** @description During a rotation’s overlap only: the same with the previous secret. */
                "X-Service-Signature-Previous"?: components["parameters"]["X-Service-Signature-Previous"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "feedback.created";
                    /** Format: date-time */
                    timestamp: string;
                    data: {
                        ticket: {
                            id: string;
                            /** @enum {string} */
                            status: "new" | "triaged" | "closed";
                            title: string | null;
                            note: string;
                            room_id: string;
                            page_url: string | null;
                            reporter_label: string | null;
                            error_group_id: string | null;
                            assignee_member_id: string | null;
                            /** Format: date-time */
                            created_at: string;
                        };
                    };
                };
            };
        };
        responses: {
            /** @description Any 2xx is a success. Anything else, or no answer within 10 s, is retried on the schedule; 410 disables the endpoint. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    deliverEventWebhooksFeedbackTriaged: {
        parameters: {
            query?: never;
            header: {
                /** @description Standard Webhooks: the delivery’s id, the same on every retry and "Send again" (deduplicate on it). */
                "webhook-id": components["parameters"]["webhook-id"];
                /** @description Standard Webhooks: seconds since the epoch when it was signed. */
                "webhook-timestamp": components["parameters"]["webhook-timestamp"];
                /** @description Standard Webhooks: `v1,<base64 HMAC-SHA256>` of `id.timestamp.body`; during a secret rotation, two, space-separated. */
                "webhook-signature": components["parameters"]["webhook-signature"];
                /** @description The event type. */
                "X-Service-Event": components["parameters"]["X-Service-Event"];
                /** @description `sha256=<hex HMAC-SHA256 of the body>` with the current secret. */
                "X-Service-Signature": components["parameters"]["X-Service-Signature"];
                /** @description During a rotation’s overlap only: the same with the previous secret. */
                "X-Service-Signature-Previous"?: components["parameters"]["X-Service-Signature-Previous"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "feedback.triaged";
                    /** Format: date-time */
                    timestamp: string;
                    data: {
                        ticket: {
                            id: string;
                            /** @enum {string} */
                            status: "new" | "triaged" | "closed";
                            title: string | null;
                            note: string;
                            room_id: string;
                            page_url: string | null;
                            reporter_label: string | null;
                            error_group_id: string | null;
                            assignee_member_id: string | null;
                            /** Format: date-time */
                            created_at: string;
                        };
                        /** @enum {string} */
                        previous_status: "new" | "triaged" | "closed";
                        actor: {
                            /** @enum {string} */
                            type: "member" | "api" | "system";
                            id: string | null;
                            name: string | null;
                        };
                    };
                };
            };
        };
        responses: {
            /** @description Any 2xx is a success. Anything else, or no answer within 10 s, is retried on the schedule; 410 disables the endpoint. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    deliverEventWebhooksFeedbackAssigned: {
        parameters: {
            query?: never;
            header: {
                /** @description Standard Webhooks: the delivery’s id, the same on every retry and "Send again" (deduplicate on it). */
                "webhook-id": components["parameters"]["webhook-id"];
                /** @description Standard Webhooks: seconds since the epoch when it was signed. */
                "webhook-timestamp": components["parameters"]["webhook-timestamp"];
                /** @description Standard Webhooks: `v1,<base64 HMAC-SHA256>` of `id.timestamp.body`; during a secret rotation, two, space-separated. */
                "webhook-signature": components["parameters"]["webhook-signature"];
                /** @description The event type. */
                "X-Service-Event": components["parameters"]["X-Service-Event"];
                /** @description `sha256=<hex HMAC-SHA256 of the body>` with the current secret. */
                "X-Service-Signature": components["parameters"]["X-Service-Signature"];
                /** @description During a rotation’s overlap only: the same with the previous secret. */
                "X-Service-Signature-Previous"?: components["parameters"]["X-Service-Signature-Previous"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "feedback.assigned";
                    /** Format: date-time */
                    timestamp: string;
                    data: {
                        ticket: {
                            id: string;
                            /** @enum {string} */
                            status: "new" | "triaged" | "closed";
                            title: string | null;
                            note: string;
                            room_id: string;
                            page_url: string | null;
                            reporter_label: string | null;
                            error_group_id: string | null;
                            assignee_member_id: string | null;
                            /** Format: date-time */
                            created_at: string;
                        };
                        assignee: {
                            id: string;
                            name: string;
                        } | null;
                        actor: {
                            /** @enum {string} */
                            type: "member" | "api" | "system";
                            id: string | null;
                            name: string | null;
                        };
                    };
                };
            };
        };
        responses: {
            /** @description Any 2xx is a success. Anything else, or no answer within 10 s, is retried on the schedule; 410 disables the endpoint. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    deliverEventWebhooksDispatchStarted: {
        parameters: {
            query?: never;
            header: {
                /** @description Standard Webhooks: the delivery’s id, the same on every retry and "Send again" (deduplicate on it). */
                "webhook-id": components["parameters"]["webhook-id"];
                /** @description Standard Webhooks: seconds since the epoch when it was signed. */
                "webhook-timestamp": components["parameters"]["webhook-timestamp"];
                /** @description Standard Webhooks: `v1,<base64 HMAC-SHA256>` of `id.timestamp.body`; during a secret rotation, two, space-separated. */
                "webhook-signature": components["parameters"]["webhook-signature"];
                /** @description The event type. */
                "X-Service-Event": components["parameters"]["X-Service-Event"];
                /** @description `sha256=<hex HMAC-SHA256 of the body>` with the current secret. */
                "X-Service-Signature": components["parameters"]["X-Service-Signature"];
                /** @description During a rotation’s overlap only: the same with the previous secret. */
                "X-Service-Signature-Previous"?: components["parameters"]["X-Service-Signature-Previous"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "dispatch.started";
                    /** Format: date-time */
                    timestamp: string;
                    data: {
                        dispatch: {
                            id: string;
                            feedback_id: string;
                            repo_id: string;
                            status: string;
                            issue_url: string | null;
                            pr_url: string | null;
                            error: string | null;
                            /** Format: date-time */
                            created_at: string;
                        };
                    };
                };
            };
        };
        responses: {
            /** @description Any 2xx is a success. Anything else, or no answer within 10 s, is retried on the schedule; 410 disables the endpoint. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    deliverEventWebhooksDispatchPrOpened: {
        parameters: {
            query?: never;
            header: {
                /** @description Standard Webhooks: the delivery’s id, the same on every retry and "Send again" (deduplicate on it). */
                "webhook-id": components["parameters"]["webhook-id"];
                /** @description Standard Webhooks: seconds since the epoch when it was signed. */
                "webhook-timestamp": components["parameters"]["webhook-timestamp"];
                /** @description Standard Webhooks: `v1,<base64 HMAC-SHA256>` of `id.timestamp.body`; during a secret rotation, two, space-separated. */
                "webhook-signature": components["parameters"]["webhook-signature"];
                /** @description The event type. */
                "X-Service-Event": components["parameters"]["X-Service-Event"];
                /** @description `sha256=<hex HMAC-SHA256 of the body>` with the current secret. */
                "X-Service-Signature": components["parameters"]["X-Service-Signature"];
                /** @description During a rotation’s overlap only: the same with the previous secret. */
                "X-Service-Signature-Previous"?: components["parameters"]["X-Service-Signature-Previous"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "dispatch.pr_opened";
                    /** Format: date-time */
                    timestamp: string;
                    data: {
                        dispatch: {
                            id: string;
                            feedback_id: string;
                            repo_id: string;
                            status: string;
                            issue_url: string | null;
                            pr_url: string | null;
                            error: string | null;
                            /** Format: date-time */
                            created_at: string;
                        };
                    };
                };
            };
        };
        responses: {
            /** @description Any 2xx is a success. Anything else, or no answer within 10 s, is retried on the schedule; 410 disables the endpoint. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    deliverEventWebhooksDispatchCompleted: {
        parameters: {
            query?: never;
            header: {
                /** @description Standard Webhooks: the delivery’s id, the same on every retry and "Send again" (deduplicate on it). */
                "webhook-id": components["parameters"]["webhook-id"];
                /** @description Standard Webhooks: seconds since the epoch when it was signed. */
                "webhook-timestamp": components["parameters"]["webhook-timestamp"];
                /** @description Standard Webhooks: `v1,<base64 HMAC-SHA256>` of `id.timestamp.body`; during a secret rotation, two, space-separated. */
                "webhook-signature": components["parameters"]["webhook-signature"];
                /** @description The event type. */
                "X-Service-Event": components["parameters"]["X-Service-Event"];
                /** @description `sha256=<hex HMAC-SHA256 of the body>` with the current secret. */
                "X-Service-Signature": components["parameters"]["X-Service-Signature"];
                /** @description During a rotation’s overlap only: the same with the previous secret. */
                "X-Service-Signature-Previous"?: components["parameters"]["X-Service-Signature-Previous"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "dispatch.completed";
                    /** Format: date-time */
                    timestamp: string;
                    data: {
                        dispatch: {
                            id: string;
                            feedback_id: string;
                            repo_id: string;
                            status: string;
                            issue_url: string | null;
                            pr_url: string | null;
                            error: string | null;
                            /** Format: date-time */
                            created_at: string;
                        };
                    };
                };
            };
        };
        responses: {
            /** @description Any 2xx is a success. Anything else, or no answer within 10 s, is retried on the schedule; 410 disables the endpoint. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    deliverEventWebhooksDispatchFailed: {
        parameters: {
            query?: never;
            header: {
                /** @description Standard Webhooks: the delivery’s id, the same on every retry and "Send again" (deduplicate on it). */
                "webhook-id": components["parameters"]["webhook-id"];
                /** @description Standard Webhooks: seconds since the epoch when it was signed. */
                "webhook-timestamp": components["parameters"]["webhook-timestamp"];
                /** @description Standard Webhooks: `v1,<base64 HMAC-SHA256>` of `id.timestamp.body`; during a secret rotation, two, space-separated. */
                "webhook-signature": components["parameters"]["webhook-signature"];
                /** @description The event type. */
                "X-Service-Event": components["parameters"]["X-Service-Event"];
                /** @description `sha256=<hex HMAC-SHA256 of the body>` with the current secret. */
                "X-Service-Signature": components["parameters"]["X-Service-Signature"];
                /** @description During a rotation’s overlap only: the same with the previous secret. */
                "X-Service-Signature-Previous"?: components["parameters"]["X-Service-Signature-Previous"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "dispatch.failed";
                    /** Format: date-time */
                    timestamp: string;
                    data: {
                        dispatch: {
                            id: string;
                            feedback_id: string;
                            repo_id: string;
                            status: string;
                            issue_url: string | null;
                            pr_url: string | null;
                            error: string | null;
                            /** Format: date-time */
                            created_at: string;
                        };
                    };
                };
            };
        };
        responses: {
            /** @description Any 2xx is a success. Anything else, or no answer within 10 s, is retried on the schedule; 410 disables the endpoint. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    deliverEventWebhooksAgentConnected: {
        parameters: {
            query?: never;
            header: {
                /** @description Standard Webhooks: the delivery’s id, the same on every retry and "Send again" (deduplicate on it). */
                "webhook-id": components["parameters"]["webhook-id"];
                /** @description Standard Webhooks: seconds since the epoch when it was signed. */
                "webhook-timestamp": components["parameters"]["webhook-timestamp"];
                /** @description Standard Webhooks: `v1,<base64 HMAC-SHA256>` of `id.timestamp.body`; during a secret rotation, two, space-separated. */
                "webhook-signature": components["parameters"]["webhook-signature"];
                /** @description The event type. */
                "X-Service-Event": components["parameters"]["X-Service-Event"];
                /** @description `sha256=<hex HMAC-SHA256 of the body>` with the current secret. */
                "X-Service-Signature": components["parameters"]["X-Service-Signature"];
                /** @description During a rotation’s overlap only: the same with the previous secret. */
                "X-Service-Signature-Previous"?: components["parameters"]["X-Service-Signature-Previous"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "agent.connected";
                    /** Format: date-time */
                    timestamp: string;
                    data: {
                        agent: {
                            id: string;
                            name: string;
                            room_id: string;
                        };
                    };
                };
            };
        };
        responses: {
            /** @description Any 2xx is a success. Anything else, or no answer within 10 s, is retried on the schedule; 410 disables the endpoint. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    deliverEventWebhooksAgentDisconnected: {
        parameters: {
            query?: never;
            header: {
                /** @description Standard Webhooks: the delivery’s id, the same on every retry and "Send again" (deduplicate on it). */
                "webhook-id": components["parameters"]["webhook-id"];
                /** @description Standard Webhooks: seconds since the epoch when it was signed. */
                "webhook-timestamp": components["parameters"]["webhook-timestamp"];
                /** @description Standard Webhooks: `v1,<base64 HMAC-SHA256>` of `id.timestamp.body`; during a secret rotation, two, space-separated. */
                "webhook-signature": components["parameters"]["webhook-signature"];
                /** @description The event type. */
                "X-Service-Event": components["parameters"]["X-Service-Event"];
                /** @description `sha256=<hex HMAC-SHA256 of the body>` with the current secret. */
                "X-Service-Signature": components["parameters"]["X-Service-Signature"];
                /** @description During a rotation’s overlap only: the same with the previous secret. */
                "X-Service-Signature-Previous"?: components["parameters"]["X-Service-Signature-Previous"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "agent.disconnected";
                    /** Format: date-time */
                    timestamp: string;
                    data: {
                        agent: {
                            id: string;
                            name: string;
                            room_id: string;
                        };
                    };
                };
            };
        };
        responses: {
            /** @description Any 2xx is a success. Anything else, or no answer within 10 s, is retried on the schedule; 410 disables the endpoint. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    deliverEventWebhooksMessageCreated: {
        parameters: {
            query?: never;
            header: {
                /** @description Standard Webhooks: the delivery’s id, the same on every retry and "Send again" (deduplicate on it). */
                "webhook-id": components["parameters"]["webhook-id"];
                /** @description Standard Webhooks: seconds since the epoch when it was signed. */
                "webhook-timestamp": components["parameters"]["webhook-timestamp"];
                /** @description Standard Webhooks: `v1,<base64 HMAC-SHA256>` of `id.timestamp.body`; during a secret rotation, two, space-separated. */
                "webhook-signature": components["parameters"]["webhook-signature"];
                /** @description The event type. */
                "X-Service-Event": components["parameters"]["X-Service-Event"];
                /** @description `sha256=<hex HMAC-SHA256 of the body>` with the current secret. */
                "X-Service-Signature": components["parameters"]["X-Service-Signature"];
                /** @description During a rotation’s overlap only: the same with the previous secret. */
                "X-Service-Signature-Previous"?: components["parameters"]["X-Service-Signature-Previous"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "message.created";
                    /** Format: date-time */
                    timestamp: string;
                    data: {
                        message: {
                            id: string;
                            room_id: string;
                            body: string;
                            sender: {
                                /** @enum {string} */
                                type: "member" | "webhook" | "agent" | "system";
                                id: string | null;
                                name: string;
                            };
                            /** Format: date-time */
                            created_at: string;
                        };
                    };
                };
            };
        };
        responses: {
            /** @description Any 2xx is a success. Anything else, or no answer within 10 s, is retried on the schedule; 410 disables the endpoint. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    deliverRoomHooksMessageCreated: {
        parameters: {
            query?: never;
            header: {
                /** @description Standard Webhooks: the delivery’s id, the same on every retry and "Send again" (deduplicate on it). */
                "webhook-id": components["parameters"]["webhook-id"];
                /** @description Standard Webhooks: seconds since the epoch when it was signed. */
                "webhook-timestamp": components["parameters"]["webhook-timestamp"];
                /** @description Standard Webhooks: `v1,<base64 HMAC-SHA256>` of `id.timestamp.body`; during a secret rotation, two, space-separated. */
                "webhook-signature": components["parameters"]["webhook-signature"];
                /** @description The event type. */
                "X-Service-Event": components["parameters"]["X-Service-Event"];
                /** @description `sha256=<hex HMAC-SHA256 of the body>` with the current secret. */
                "X-Service-Signature": components["parameters"]["X-Service-Signature"];
                /** @description During a rotation’s overlap only: the same with the previous secret. */
                "X-Service-Signature-Previous"?: components["parameters"]["X-Service-Signature-Previous"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    event: "message_created";
                    room: {
                        id: string;
                        name: string;
                        workspace_id: string;
                    };
                    message: components["schemas"]["Message"];
                };
            };
        };
        responses: {
            /** @description Any 2xx is a success. Anything else, or no answer within 10 s, is retried on the schedule; 410 disables the endpoint. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    deliverErrorAlertsErrorGroupCreated: {
        parameters: {
            query?: never;
            header: {
                /** @description Standard Webhooks: the delivery’s id, the same on every retry and "Send again" (deduplicate on it). */
                "webhook-id": components["parameters"]["webhook-id"];
                /** @description Standard Webhooks: seconds since the epoch when it was signed. */
                "webhook-timestamp": components["parameters"]["webhook-timestamp"];
                /** @description Standard Webhooks: `v1,<base64 HMAC-SHA256>` of `id.timestamp.body`; during a secret rotation, two, space-separated. */
                "webhook-signature": components["parameters"]["webhook-signature"];
                /** @description The event type. */
                "X-Service-Event": components["parameters"]["X-Service-Event"];
                /** @description `sha256=<hex HMAC-SHA256 of the body>` with the current secret. */
                "X-Service-Signature": components["parameters"]["X-Service-Signature"];
                /** @description During a rotation’s overlap only: the same with the previous secret. */
                "X-Service-Signature-Previous"?: components["parameters"]["X-Service-Signature-Previous"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    type: "error_group.created" | "error_group.regressed" | "error_group.spiking";
                    /**
                     * Format: date-time
                     * @description ISO 8601, UTC.
                     */
                    timestamp: string;
                    data: {
                        workspace_id: string;
                        /** @enum {string} */
                        trigger: "created" | "regressed" | "spiking";
                        group: {
                            id: string;
                            error_class: string;
                            latest_message: string;
                            /** @description The top frame of the latest backtrace. */
                            culprit: string | null;
                            environment: string | null;
                            occurrence_count: number;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC.
                             */
                            first_seen_at: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC.
                             */
                            last_seen_at: string;
                            /** @description The group’s page in Ferry. */
                            url: string;
                        };
                    };
                };
            };
        };
        responses: {
            /** @description Any 2xx is a success. Anything else, or no answer within 10 s, is retried on the schedule; 410 disables the endpoint. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    deliverErrorAlertsErrorGroupRegressed: {
        parameters: {
            query?: never;
            header: {
                /** @description Standard Webhooks: the delivery’s id, the same on every retry and "Send again" (deduplicate on it). */
                "webhook-id": components["parameters"]["webhook-id"];
                /** @description Standard Webhooks: seconds since the epoch when it was signed. */
                "webhook-timestamp": components["parameters"]["webhook-timestamp"];
                /** @description Standard Webhooks: `v1,<base64 HMAC-SHA256>` of `id.timestamp.body`; during a secret rotation, two, space-separated. */
                "webhook-signature": components["parameters"]["webhook-signature"];
                /** @description The event type. */
                "X-Service-Event": components["parameters"]["X-Service-Event"];
                /** @description `sha256=<hex HMAC-SHA256 of the body>` with the current secret. */
                "X-Service-Signature": components["parameters"]["X-Service-Signature"];
                /** @description During a rotation’s overlap only: the same with the previous secret. */
                "X-Service-Signature-Previous"?: components["parameters"]["X-Service-Signature-Previous"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    type: "error_group.created" | "error_group.regressed" | "error_group.spiking";
                    /**
                     * Format: date-time
                     * @description ISO 8601, UTC.
                     */
                    timestamp: string;
                    data: {
                        workspace_id: string;
                        /** @enum {string} */
                        trigger: "created" | "regressed" | "spiking";
                        group: {
                            id: string;
                            error_class: string;
                            latest_message: string;
                            /** @description The top frame of the latest backtrace. */
                            culprit: string | null;
                            environment: string | null;
                            occurrence_count: number;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC.
                             */
                            first_seen_at: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC.
                             */
                            last_seen_at: string;
                            /** @description The group’s page in Ferry. */
                            url: string;
                        };
                    };
                };
            };
        };
        responses: {
            /** @description Any 2xx is a success. Anything else, or no answer within 10 s, is retried on the schedule; 410 disables the endpoint. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    deliverErrorAlertsErrorGroupSpiking: {
        parameters: {
            query?: never;
            header: {
                /** @description Standard Webhooks: the delivery’s id, the same on every retry and "Send again" (deduplicate on it). */
                "webhook-id": components["parameters"]["webhook-id"];
                /** @description Standard Webhooks: seconds since the epoch when it was signed. */
                "webhook-timestamp": components["parameters"]["webhook-timestamp"];
                /** @description Standard Webhooks: `v1,<base64 HMAC-SHA256>` of `id.timestamp.body`; during a secret rotation, two, space-separated. */
                "webhook-signature": components["parameters"]["webhook-signature"];
                /** @description The event type. */
                "X-Service-Event": components["parameters"]["X-Service-Event"];
                /** @description `sha256=<hex HMAC-SHA256 of the body>` with the current secret. */
                "X-Service-Signature": components["parameters"]["X-Service-Signature"];
                /** @description During a rotation’s overlap only: the same with the previous secret. */
                "X-Service-Signature-Previous"?: components["parameters"]["X-Service-Signature-Previous"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    type: "error_group.created" | "error_group.regressed" | "error_group.spiking";
                    /**
                     * Format: date-time
                     * @description ISO 8601, UTC.
                     */
                    timestamp: string;
                    data: {
                        workspace_id: string;
                        /** @enum {string} */
                        trigger: "created" | "regressed" | "spiking";
                        group: {
                            id: string;
                            error_class: string;
                            latest_message: string;
                            /** @description The top frame of the latest backtrace. */
                            culprit: string | null;
                            environment: string | null;
                            occurrence_count: number;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC.
                             */
                            first_seen_at: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC.
                             */
                            last_seen_at: string;
                            /** @description The group’s page in Ferry. */
                            url: string;
                        };
                    };
                };
            };
        };
        responses: {
            /** @description Any 2xx is a success. Anything else, or no answer within 10 s, is retried on the schedule; 410 disables the endpoint. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    deliverEventWebhooksWebhookTest: {
        parameters: {
            query?: never;
            header: {
                /** @description Standard Webhooks: the delivery’s id, the same on every retry and "Send again" (deduplicate on it). */
                "webhook-id": components["parameters"]["webhook-id"];
                /** @description Standard Webhooks: seconds since the epoch when it was signed. */
                "webhook-timestamp": components["parameters"]["webhook-timestamp"];
                /** @description Standard Webhooks: `v1,<base64 HMAC-SHA256>` of `id.timestamp.body`; during a secret rotation, two, space-separated. */
                "webhook-signature": components["parameters"]["webhook-signature"];
                /** @description The event type. */
                "X-Service-Event": components["parameters"]["X-Service-Event"];
                /** @description `sha256=<hex HMAC-SHA256 of the body>` with the current secret. */
                "X-Service-Signature": components["parameters"]["X-Service-Signature"];
                /** @description During a rotation’s overlap only: the same with the previous secret. */
                "X-Service-Signature-Previous"?: components["parameters"]["X-Service-Signature-Previous"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "webhook.test";
                    /** Format: date-time */
                    timestamp: string;
                    data: {
                        endpoint: {
                            id: string;
                            url: string;
                        };
                        message: string;
                    };
                };
            };
        };
        responses: {
            /** @description Any 2xx is a success. Anything else, or no answer within 10 s, is retried on the schedule; 410 disables the endpoint. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
