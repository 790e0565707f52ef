import { html } from "hono/html";
import type { Session } from "../session-store.js";

export type Html = ReturnType<typeof html>;

/** The page frame: a skip link, the nav (Admin only for admins), sign-out as a form with its CSRF token. */
export function layout(title: string, session: Session | null, body: Html | Html[]): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Open SWE</title>
<link rel="stylesheet" href="/app/static/app.css">
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header>
  <nav aria-label="Main">
    <strong>Open SWE</strong>
    ${session
      ? html`<a href="/app/runs">Runs</a> <a href="/app/tasks/new">New task</a> <a href="/app/approvals">Approvals</a> <a href="/app/profile">Profile</a>
        ${session.admin ? html`<a href="/app/admin">Admin</a>` : ""}
        <form method="post" action="/auth/logout" class="inline">
          <input type="hidden" name="_csrf" value="${session.csrf}">
          <button type="submit">Sign out @${session.login}</button>
        </form>`
      : ""}
  </nav>
</header>
<main id="main">
<h1>${title}</h1>
${body}
</main>
</body>
</html>`;
}

export function csrfField(session: Session): Html {
  return html`<input type="hidden" name="_csrf" value="${session.csrf}">`;
}

/** A page that only says something (refusals, errors), with a link on. */
export function messagePage(title: string, session: Session | null, text: string, link?: { href: string; label: string }): Html {
  return layout(title, session, html`<p role="alert">${text}</p>${link ? html`<p><a href="${link.href}">${link.label}</a></p>` : ""}`);
}

export const CSS = `
:root{color-scheme:light dark;--fg:#1b1f24;--bg:#fff;--mute:#59636e;--line:#d1d9e0;--accent:#0969da;--bad:#cf222e;--ok:#1a7f37}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--mute:#9198a1;--line:#3d444d;--accent:#4493f8;--bad:#f85149;--ok:#3fb950}}
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,sans-serif;color:var(--fg);background:var(--bg)}
header{border-bottom:1px solid var(--line);padding:.5rem 1rem}nav{display:flex;flex-wrap:wrap;gap:.75rem;align-items:center}
main{padding:1rem;max-width:72rem;margin:0 auto}a{color:var(--accent)}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:var(--bg);padding:.25rem}
form.inline{display:inline}button,input,select,textarea{font:inherit;padding:.35rem .6rem;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--fg)}
button{cursor:pointer}button.danger{border-color:var(--bad);color:var(--bad)}
label{display:block;margin:.5rem 0 .2rem;font-weight:600}textarea{width:100%;min-height:8rem}
.table{overflow-x:auto}table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
.filters{display:flex;flex-wrap:wrap;gap:.5rem;align-items:end}.filters label{margin:0}
.msg{border:1px solid var(--line);border-radius:8px;padding:.5rem .75rem;margin:.5rem 0}.msg h3{margin:0 0 .25rem;font-size:.9rem;color:var(--mute)}
.msg pre,.msg .text{white-space:pre-wrap;word-break:break-word;margin:.25rem 0}.msg.tool{font-size:.9rem}.msg.error{border-color:var(--bad)}
.status{font-weight:600}.status-running,.status-queued{color:var(--accent)}.status-failed,.status-stopped{color:var(--bad)}.status-pr_opened,.status-completed{color:var(--ok)}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}dl.facts dt{color:var(--mute)}
`;
