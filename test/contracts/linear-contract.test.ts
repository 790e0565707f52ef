import { describe, expect, it } from "vitest";
import { checkLinearExchange } from "./linear-graphql.js";

const Q = "query OpenSweT($id: String!) { issue(id: $id) { id identifier title url priority createdAt state { name type } assignee { name } } }";
const req = (query: string, variables: Record<string, unknown> = { id: "ENG-1" }) => JSON.stringify({ query, variables });
const issue = {
  id: "i",
  identifier: "ENG-1",
  title: "t",
  url: "https://linear.app/a/issue/ENG-1",
  priority: 0,
  createdAt: "2026-12-01T09:00:00.000Z",
  state: { name: "Todo", type: "unstarted" },
  assignee: null,
};

describe("Linear's schema (read from @linear/sdk) as the contract of a mocked exchange", () => {
  it.each([
    ["an answer a Linear server could give", req(Q), { data: { issue } }, []],
    ["a field Issue does not have", req(Q.replace("url", "link")), { data: { issue } }, ['graphql: the query is not valid against Linear\'s schema: Cannot query field "link" on type "Issue".']],
    [
      "an argument the field does not take",
      req(Q.replace("issue(id: $id)", "issue(id: $id, colour: 1)")),
      { data: { issue } },
      ['graphql: the query is not valid against Linear\'s schema: Unknown argument "colour" on field "Query.issue".'],
    ],
    ["a variable of the wrong type", req(Q, { id: 7 }), { data: { issue } }, ['OpenSweT: variables: Variable "$id" got invalid value 7; String cannot represent a non string value: 7']],
    ["a missing non-null field", req(Q), { data: { issue: { ...issue, title: undefined } } }, ["OpenSweT: data.issue.title: Cannot return null for non-nullable field Issue.title."]],
    [
      "a number where the schema has a string",
      req(Q),
      { data: { issue: { ...issue, identifier: 1 } } },
      ['OpenSweT: data.issue.identifier: the mock sends 1, the schema\'s type serialises it as "1"'],
    ],
    ["a date that is not ISO 8601", req(Q), { data: { issue: { ...issue, createdAt: 5 } } }, ["OpenSweT: data.issue.createdAt: DateTime cannot represent 5: Linear sends an ISO 8601 string"]],
    ["a key the query never selected", req(Q), { data: { issue: { ...issue, description: "x" } } }, ["OpenSweT: data.issue.description: not selected by the query (a server would not send it)"]],
    ["an error answer with messages", req(Q), { data: null, errors: [{ message: "Entity not found: Issue" }] }, []],
    ["an answer with neither data nor errors", req(Q), {}, ['OpenSweT: an answer without data must carry "errors" (HTTP 200)']],
    ["a gateway's HTML page", req(Q), "<html>Bad gateway</html>", []],
  ])("%s", (_name, request, answer, expected) => {
    expect(checkLinearExchange(request, typeof answer === "string" ? 502 : 200, answer).violations).toEqual(expected);
  });

  it("knows the arguments of a field whose name has an acronym (attachmentLinkURL → AttachmentLinkUrlArgs)", () => {
    const m = "mutation OpenSweA($issueId: String!, $url: String!) { attachmentLinkURL(issueId: $issueId, url: $url) { success } }";
    expect(checkLinearExchange(JSON.stringify({ query: m, variables: { issueId: "i", url: "https://x" } }), 200, { data: { attachmentLinkURL: { success: true } } }).violations).toEqual([]);
  });
});
