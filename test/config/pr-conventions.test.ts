import { describe, expect, it } from "vitest";
import { footerPlaces, prConventionsText, renderPrTitle, sectionProblems } from "../../src/config/pr-conventions.js";
import { parseRepoConfig, RepoConfigError } from "../../src/config/repo-config.js";

describe("renderPrTitle", () => {
  it.each([
    ["no template: the agent's title", undefined, 8, "Add a guide"],
    ["a prefix", "feat: {title}", 8, "feat: Add a guide"],
    ["the asking issue", "{title} ({issue})", 8, "Add a guide (#8)"],
    ["no issue: its brackets and spaces go", "[{issue}] {title}", undefined, "Add a guide"],
  ] as const)("%s", (_name, template, issue, want) => {
    expect(renderPrTitle(template, { title: "Add a guide", issue })).toBe(want);
  });

  it("caps the result at GitHub's 256 characters", () => {
    expect(renderPrTitle("feat: {title}", { title: "x".repeat(300) })).toHaveLength(256);
  });
});

describe("sectionProblems", () => {
  const sections = ["Summary", "Validation", "Tests", "Notes"];
  it.each([
    ["no sections configured", "anything", undefined, { missing: [], outOfOrder: false }],
    ["all, in order, any heading level and case", "## Summary\nx\n### validation\ny\n# Tests ##\nz\n## Notes", sections, { missing: [], outOfOrder: false }],
    ["one missing", "## Summary\n## Validation\n## Notes", sections, { missing: ["Tests"], outOfOrder: false }],
    ["a section only as text is missing", "Summary: x\n## Validation\n## Tests\n## Notes", sections, { missing: ["Summary"], outOfOrder: false }],
    ["out of order", "## Tests\n## Summary\n## Validation\n## Notes", sections, { missing: [], outOfOrder: true }],
  ] as const)("%s", (_name, body, wanted, want) => {
    expect(sectionProblems(body, wanted)).toEqual(want);
  });
});

describe("footerPlaces", () => {
  it.each([
    ["off", { comment: false, pullRequest: false }],
    ["comment", { comment: true, pullRequest: false }],
    ["all", { comment: true, pullRequest: true }],
  ] as const)("%s", (setting, want) => expect(footerPlaces(setting)).toEqual(want));
});

describe("prConventionsText", () => {
  it("says the template and the sections, or nothing", () => {
    expect(prConventionsText(undefined)).toBe("");
    expect(prConventionsText({ title_template: "feat: {title}", body_sections: ["Summary", "Tests"] })).toBe(
      "Pull request titles follow `feat: {title}`: give `open_or_update_pull_request` only the `{title}` part; the template is applied for you.\nPull request descriptions have these Markdown sections, in this order: `## Summary`, `## Tests`.",
    );
  });
});

describe(".github/open-swe.yml pr and footer", () => {
  it("defaults: no conventions, the footer on replies as before", () => {
    expect(parseRepoConfig({})).toMatchObject({ pr: {}, footer: "comment" });
  });

  it("accepts the documented keys", () => {
    expect(parseRepoConfig({ pr: { title_template: "[{issue}] {title}", body_sections: ["Summary", "Validation", "Tests", "Notes"] }, footer: "all" })).toMatchObject({
      pr: { title_template: "[{issue}] {title}", body_sections: ["Summary", "Validation", "Tests", "Notes"] },
      footer: "all",
    });
  });

  it.each([
    ["a template without {title}", { pr: { title_template: "feat" } }, /pr\.title_template.*must contain \{title\}/],
    ["an unknown placeholder", { pr: { title_template: "{title} {author}" } }, /only \{title\} and \{issue\}/],
    ["a heading with a #", { pr: { body_sections: ["## Summary"] } }, /pr\.body_sections\.0/],
    ["a section twice", { pr: { body_sections: ["Tests", "tests"] } }, /each section once/],
    ["an unknown pr key", { pr: { labels: ["x"] } }, /pr/],
    ["a footer value not offered", { footer: "pr" }, /footer/],
  ])("refuses %s, naming the key", (_name, raw, reason) => {
    let err: unknown;
    try {
      parseRepoConfig(raw);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RepoConfigError);
    expect((err as RepoConfigError).details).toMatch(reason);
  });
});
