import { refuseUnlessWriter } from "./repo-rights.js";
import { randomUUID } from "node:crypto";
import type { Hono } from "hono";
import { html } from "hono/html";
import { z } from "zod";
import { allowedThreadModels } from "../agent/model/thread-model.js";
import { jobId } from "../queue/job-ids.js";
import { RunIndex } from "../store/run-index.js";
import { threadId } from "../shared/thread-id.js";
import { ThreadModelStore } from "../threads/thread-model-store.js";
import type { DashboardDeps, DashboardEnv } from "./dashboard-deps.js";
import { selectOptions } from "./profile-routes.js";
import { csrfField, layout, messagePage } from "./views/layout.js";

export const MAX_TASK_CHARS = 20_000;
export const TaskForm = z.object({
  repo: z.string().min(1, "pick a repository"),
  text: z.string().trim().min(1, "write the task").max(MAX_TASK_CHARS, `at most ${MAX_TASK_CHARS} characters`),
  model: z.string().max(120).optional(),
});

/** The thread a dashboard task runs on: its own, never shared with an issue or another task. */
export function dashboardThreadKey(taskId: string): string {
  return `dashboard:${taskId}`;
}

export function mountTasks(app: Hono<DashboardEnv>, deps: DashboardDeps): void {
  const models = allowedThreadModels(deps.config.env.THREAD_MODELS);

  app.get("/app/tasks/new", (c) => {
    const session = c.get("session");
    if (session.repos.length === 0) return c.html(messagePage("New task", session, "You cannot write to any repository where Open SWE is installed."));
    return c.html(
      layout(
        "New task",
        session,
        html`
<form method="post" action="/app/tasks">${csrfField(session)}
<label for="repo">Repository</label>
<select class="form-select" id="repo" name="repo" required>${session.repos.map((r) => html`<option value="${r}">${r}</option>`)}</select>
<label for="text">Task</label>
<textarea class="form-control" id="text" name="text" required maxlength="${MAX_TASK_CHARS}" placeholder="What should the agent do?"></textarea>
<label for="model">Model</label>
<select class="form-select" id="model" name="model">${selectOptions(models, undefined, "my default")}</select>
<p><button type="submit" class="btn btn-primary">Start</button></p>
</form>`,
      ),
    );
  });

  app.post("/app/tasks", async (c) => {
    const session = c.get("session");
    const back = { href: "/app/tasks/new", label: "Back" };
    const f = TaskForm.safeParse(await c.req.parseBody());
    if (!f.success) return c.html(messagePage("Not started", session, `The task was not started: ${f.error.issues[0]?.message ?? "invalid form"}.`, back), 400);
    const repo = f.data.repo.toLowerCase();
    const installationId = session.installations[repo];
    if (!session.repos.includes(repo) || installationId === undefined)
      return c.html(messagePage("Not started", session, `You cannot write to ${repo} (or the app is not installed there).`, back), 403);
    if (f.data.model && !models.includes(f.data.model)) return c.html(messagePage("Not started", session, `The model ${f.data.model} is not one this installation allows.`, back), 400);
    const refused = await refuseUnlessWriter(c, deps, session, repo, "the task was not started");
    if (refused) return refused;
    const [owner, name] = repo.split("/") as [string, string];
    const taskId = randomUUID();
    const key = dashboardThreadKey(taskId);
    const thread = threadId({ kind: "source", key, repo });
    const runId = jobId("dashboard", taskId);
    // A new thread's model is the one picked here (the thread model has the highest precedence).
    if (f.data.model) await new ThreadModelStore(deps.redis, deps.prefix).set(thread, f.data.model);
    await new RunIndex(deps.redis, deps.prefix).put({
      runId,
      repo,
      threadId: thread,
      trigger: "comment",
      source: "dashboard",
      requester: session.login,
      title: f.data.text.split("\n")[0]!.slice(0, 200),
      request: f.data.text.slice(0, 20_000),
      status: "queued",
      queuedAt: Date.now(),
    });
    await deps.queues.add(
      "agent",
      {
        installationId,
        owner,
        repo: name,
        source: { kind: "dashboard", ref: { taskId }, threadKey: key },
        threadId: thread,
        trigger: "comment",
        requester: { login: session.login, id: session.userId },
        text: f.data.text,
        deliveryId: taskId,
      },
      runId,
      { via: "dashboard" },
    );
    deps.log.info({ login: session.login, repo, runId }, "dashboard: task started");
    return c.redirect(`/app/runs/${encodeURIComponent(runId)}`, 303);
  });
}
