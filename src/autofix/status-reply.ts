export interface AutofixStatusFacts {
  repoEnabled: boolean;
  /** Who the agent thread that opened this PR acts for; null: the agent did not open it. */
  requester: string | null;
  prToggle: boolean | null;
  requesterAutoFixCi: boolean;
  repoDefault: boolean;
  attempts: number;
  maxAttempts: number;
}

/** Pure: the answer to a bare `@open-swe autofix` — whether CI autofix acts on this PR, and why. */
export function autofixStatusReply(f: AutofixStatusFacts): string {
  if (!f.repoEnabled) return "CI autofix is **off** here: this repository is not enabled for Open SWE.";
  if (f.requester === null) {
    return "CI autofix does not apply to this pull request: I did not open it. `@open-swe fix ci` asks me for one fix run.";
  }
  const used = ` ${f.attempts} of ${f.maxAttempts} fix runs (\`autofix.max_attempts\`) used.`;
  if (f.prToggle === false) return `CI autofix is **off** for this pull request (\`@open-swe autofix off\` was said here; \`autofix on\` turns it back on).${used}`;
  if (f.prToggle === true) return `CI autofix is **on** for this pull request (\`@open-swe autofix on\` was said here).${used}`;
  if (f.requesterAutoFixCi) return `CI autofix is **on** for this pull request: @${f.requester}'s profile turns it on (\`autoFixCi\`).${used}`;
  if (f.repoDefault) return `CI autofix is **on** for this pull request: \`autofix.default\` is true in \`.github/open-swe.yml\`.${used}`;
  return "CI autofix is **off** for this pull request: nobody opted in (`@open-swe autofix on` here, `autoFixCi` in the requester's profile, or `autofix.default` in `.github/open-swe.yml`).";
}
