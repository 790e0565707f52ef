import type { ApplicationFunction, Probot } from "probot";
import type { HandlerDeps } from "./github/handler-deps.js";
import { guardHandler } from "./github/guard-handler.js";
import { registerCiHandlers } from "./github/handlers/ci-events.js";
import { registerCommentHandlers } from "./github/handlers/comments.js";
import { registerInstallationHandlers } from "./github/handlers/installation.js";
import { registerIssueHandlers } from "./github/handlers/issues.js";
import { registerPullRequestHandlers } from "./github/handlers/pull-request.js";

/** The Probot app: thin handlers that decide and enqueue; every GitHub API call happens in a worker. */
export function createApp(deps: HandlerDeps): ApplicationFunction {
  return (app) => {
    // Every handler answers a malformed payload with a short 400, never with internal error text.
    const on = app.on.bind(app);
    app.on = ((events: Parameters<Probot["on"]>[0], handler: Parameters<Probot["on"]>[1]) => on(events, guardHandler(handler, deps.log))) as Probot["on"];
    registerCommentHandlers(app, deps);
    registerIssueHandlers(app, deps);
    registerPullRequestHandlers(app, deps);
    registerCiHandlers(app, deps);
    registerInstallationHandlers(app, deps);
  };
}
