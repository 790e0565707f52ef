/** The reply to `@open-swe help`, to an empty mention, and to a command that could not be understood. */
export function helpText(handle: string, reason: string): string {
  const h = `@${handle}`;
  return [
    reason ? `${reason}\n` : "",
    "Here is what I understand:",
    "",
    `- \`${h} <task>\` — work on the task and open (or update) a draft pull request`,
    `- \`${h} <task> --verdict\` — the same, and the run may ask for a review that approves or requests changes`,
    `- \`${h} --model <id> <task>\` — the same on that model (this thread's later runs too)`,
    `- \`${h} review [notes]\` — review this pull request (comments only)`,
    `- \`${h} review --verdict [notes]\` — review and approve or request changes`,
    `- \`${h} review --model <id> [notes]\` — review on that model (this pull request's later reviews too)`,
    `- \`${h} fix ci\` — one run to fix this pull request's failing checks (\`fix ci --allow-test-config\` also lets it change how tests are selected or run)`,
    `- \`${h} approve <id>\` / \`${h} deny <id> [reason]\` — decide a paused run's request to use a tool that needs approval`,
    `- \`${h} autofix on|off\` — whether I try to fix failing checks on this pull request (one I opened); \`${h} autofix\` alone says the current state`,
  ]
    .join("\n")
    .trim();
}
