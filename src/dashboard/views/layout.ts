import { html } from "hono/html";
import type { Session } from "../session-store.js";

export type Html = ReturnType<typeof html>;

/**
 * The page frame on GitHub's Primer CSS (served by us, light or dark as the browser prefers): a skip
 * link, the header nav (Admin only for admins), sign-out as a form with its CSRF token.
 */
export function layout(title: string, session: Session | null, body: Html | Html[]): Html {
  return html`<!doctype html>
<html lang="en" data-color-mode="auto" data-light-theme="light" data-dark-theme="dark">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${title} · Open SWE</title>
<link rel="icon" type="image/svg+xml" href="/app/static/favicon.svg">
<link rel="stylesheet" href="/app/static/primer.css">
<link rel="stylesheet" href="/app/static/diff2html.css">
<link rel="stylesheet" href="/app/static/app.css">
</head>
<body>
<a class="skip btn" href="#main">Skip to content</a>
<header class="Header flex-wrap px-3 py-2">
  <div class="Header-item"><a class="Header-link f4 text-bold" href="/app">Open SWE</a></div>
  ${
    session
      ? html`<nav aria-label="Main" class="Header-item Header-item--full flex-wrap">
    <a class="Header-link mr-3" href="/app/runs">Runs</a><a class="Header-link mr-3" href="/app/tasks/new">New task</a><a class="Header-link mr-3" href="/app/approvals">Approvals</a><a class="Header-link mr-3" href="/app/insights">Insights</a><a class="Header-link mr-3" href="/app/profile">Profile</a>${session.admin ? html`<a class="Header-link mr-3" href="/app/admin">Admin</a>` : ""}
  </nav>
  <div class="Header-item mr-0">
    <form method="post" action="/auth/logout" class="inline">
      <input type="hidden" name="_csrf" value="${session.csrf}">
      <button type="submit" class="btn btn-sm">Sign out @${session.login}</button>
    </form>
  </div>`
      : ""
  }
</header>
<main id="main" class="container-xl px-3 py-4">
<h1 class="h2 mb-3">${title}</h1>
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
  return layout(title, session, html`<div class="flash" role="alert">${text}</div>${link ? html`<p class="mt-3"><a href="${link.href}">${link.label}</a></p>` : ""}`);
}

/**
 * What Primer CSS 22 no longer ships (Label, Box, flash, blankslate moved to Primer's component
 * libraries; drawn here with Primer's own variables), the skip link, wrapping, the runs list's cards.
 */
export const CSS = `
body{overflow-wrap:anywhere}
.Box{background:var(--bgColor-default);border:1px solid var(--borderColor-default);border-radius:6px;max-width:100%}
.Box-header{padding:12px 16px;background:var(--bgColor-muted);border:0;border-bottom:1px solid var(--borderColor-default);border-radius:6px 6px 0 0}
.Box-title{font-size:14px;font-weight:600;margin:0}.Box-body{padding:16px}
.flash{padding:12px 16px;border:1px solid var(--borderColor-accent-muted);border-radius:6px;background:var(--bgColor-accent-muted);color:var(--fgColor-default)}
.flash-error{border-color:var(--borderColor-danger-muted);background:var(--bgColor-danger-muted)}
.flash-warn{border-color:var(--borderColor-attention-muted);background:var(--bgColor-attention-muted)}
.flash-success{border-color:var(--borderColor-success-muted);background:var(--bgColor-success-muted)}
.blankslate{padding:32px 16px;text-align:center;border:1px dashed var(--borderColor-default);border-radius:6px;color:var(--fgColor-muted)}
.Label{display:inline-block;padding:0 7px;font-size:12px;font-weight:500;line-height:18px;white-space:nowrap;border:1px solid var(--borderColor-default);border-radius:2em;color:var(--fgColor-muted)}
.Label--accent{color:var(--fgColor-accent);border-color:var(--borderColor-accent-emphasis)}
.Label--success{color:var(--fgColor-success);border-color:var(--borderColor-success-emphasis)}
.Label--done{color:var(--fgColor-done);border-color:var(--borderColor-done-emphasis)}
.Label--attention{color:var(--fgColor-attention);border-color:var(--borderColor-attention-emphasis)}
.Label--danger{color:var(--fgColor-danger);border-color:var(--borderColor-danger-emphasis)}
.skip{position:absolute;left:-9999px;z-index:100}.skip:focus{left:1rem;top:.5rem}
form.inline{display:inline}.actions{gap:8px 16px}.actions>form,.form-group{max-width:100%;min-width:0}
.filters{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:flex-end}.filters .form-group{margin:0}
textarea.form-control{width:100%;min-height:8rem}
main form>label{display:block;font-weight:600;margin:.75rem 0 .25rem}main form>select.form-select,main form>input.form-control{max-width:100%}
.msg pre,.msg .text,pre.preview{white-space:pre-wrap;word-break:break-word;margin:.25rem 0}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;margin:0 0 1rem}dl.facts dt{color:var(--fgColor-muted)}dl.facts dd{margin:0;min-width:0}
.table-wrap{overflow-x:auto}
.insights-grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,520px),1fr));gap:16px}.insights-grid>.Box{min-width:0}.chart{max-width:100%}.chart:focus{outline:2px solid var(--focus-outlineColor,var(--fgColor-accent));outline-offset:2px}.chart .uplot{width:100%}.chart .u-legend{font-size:12px}
.runs{width:100%;border-collapse:collapse}.runs th,.runs td{text-align:left;padding:.5rem;border-bottom:1px solid var(--borderColor-default);vertical-align:top}
.runs th{color:var(--fgColor-muted);font-weight:600;font-size:12px;white-space:nowrap}.runs td:not(.run-title){white-space:nowrap;overflow-wrap:normal}.runs td.run-title{min-width:14rem}
@media (max-width:699.98px){
  .runs thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
  .runs,.runs tbody,.runs tr,.runs td{display:block;width:100%}
  .runs tr{border:1px solid var(--borderColor-default);border-radius:6px;padding:.5rem .75rem;margin-bottom:.75rem;background:var(--bgColor-default)}
  .runs td,.runs td:not(.run-title){border:0;padding:.15rem 0;display:flex;gap:.5rem;white-space:normal;overflow-wrap:anywhere}.runs td.run-title{min-width:0}
  .runs td[data-label]::before{content:attr(data-label);color:var(--fgColor-muted);min-width:6rem;font-size:12px;padding-top:2px}
  .runs td.run-title{font-weight:600}
  .runs td.optional{display:none}
}
`;
