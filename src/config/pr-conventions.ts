import { z } from "zod";

const PLACEHOLDER = /\{(\w+)\}/g;
const KNOWN_PLACEHOLDERS = new Set(["title", "issue"]);

/** `.github/open-swe.yml` `pr`: how the team wants the agent's pull requests titled and described. */
export const PrConventions = z
  .object({
    /** e.g. `feat: {title}` or `[{issue}] {title}`; `{title}` is the agent's title, `{issue}` `#<n>` of the asking issue (empty otherwise). */
    title_template: z
      .string()
      .min(1)
      .max(200)
      .refine((t) => t.includes("{title}"), "must contain {title}")
      .refine((t) => [...t.matchAll(PLACEHOLDER)].every((m) => KNOWN_PLACEHOLDERS.has(m[1]!)), "only {title} and {issue} can be used")
      .optional()
      .meta({ description: "The PR title's template, e.g. `feat: {title} ({issue})`: {title} is the agent's title (required), {issue} `#<n>` of the issue it was asked on (empty elsewhere)" }),
    /** Headings the PR description must have, in this order, e.g. `[Summary, Validation, Tests, Notes]`. */
    body_sections: z
      .array(z.string().regex(/^[^\n#]{1,60}$/, "a heading of 1–60 characters, no `#` or line break"))
      .max(12)
      .refine((s) => new Set(s.map((x) => x.trim().toLowerCase())).size === s.length, "each section once")
      .optional()
      .meta({ description: "Headings the PR description must have, in this order (any level, any case), e.g. [Summary, Validation, Tests, Notes]; the host refuses a description without them" }),
  })
  .strict();
export type PrConventions = z.infer<typeof PrConventions>;

/** `.github/open-swe.yml` `footer`: where the run's cost line goes — nowhere, the reply (default), or the reply and the PR. */
export const FooterSetting = z.enum(["off", "comment", "all"]);
export type FooterSetting = z.infer<typeof FooterSetting>;

const TITLE_MAX = 256;

/** Pure: the PR title after the team's template. `{issue}` empty → the space around it collapses. */
export function renderPrTitle(template: string | undefined, o: { title: string; issue?: number | undefined }): string {
  if (!template) return o.title;
  const issue = o.issue !== undefined ? `#${o.issue}` : "";
  const filled = template.replace(PLACEHOLDER, (_m, name: string) => (name === "title" ? o.title : issue));
  const tidy = filled
    .replace(/\[\s*\]|\(\s*\)/g, "")
    .replace(/\s+/g, " ")
    .trim();
  return tidy.length > TITLE_MAX ? `${tidy.slice(0, TITLE_MAX - 1)}…` : tidy;
}

const headingText = (line: string) => /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line.trim())?.[1]?.trim().toLowerCase();

/**
 * Pure: the configured sections the body lacks, or has out of order, as a Markdown heading (`## Summary`,
 * any level). Empty when it follows the convention.
 */
export function sectionProblems(body: string, sections: readonly string[] | undefined): { missing: string[]; outOfOrder: boolean } {
  if (!sections?.length) return { missing: [], outOfOrder: false };
  const headings = body
    .split("\n")
    .map(headingText)
    .filter((h): h is string => h !== undefined);
  const positions = sections.map((s) => headings.indexOf(s.trim().toLowerCase()));
  const missing = sections.filter((_s, i) => positions[i] === -1);
  const found = positions.filter((p) => p !== -1);
  return { missing, outOfOrder: found.some((p, i) => i > 0 && p < found[i - 1]!) };
}

/** Pure: the repository-instructions lines that tell the model the team's PR conventions up front. */
export function prConventionsText(pr: PrConventions | undefined): string {
  const lines = [
    ...(pr?.title_template ? [`Pull request titles follow \`${pr.title_template}\`: give \`open_or_update_pull_request\` only the \`{title}\` part; the template is applied for you.`] : []),
    ...(pr?.body_sections?.length ? [`Pull request descriptions have these Markdown sections, in this order: ${pr.body_sections.map((s) => `\`## ${s}\``).join(", ")}.`] : []),
  ];
  return lines.join("\n");
}

/** Pure: where the run's cost footer is shown. */
export function footerPlaces(setting: FooterSetting): { comment: boolean; pullRequest: boolean } {
  return { comment: setting !== "off", pullRequest: setting === "all" };
}
