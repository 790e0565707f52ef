import type { Content, ContentArray, SearchPageResponseSearchResult, User as ConfluenceUser } from "confluence.js/v1";
import type { Comment, CreatedIssue, Document, ErrorCollection, Issue, PageOfComments, PageProject, User as JiraUser } from "jira.js/version3/models";
import { type Sent, typedBody } from "./typed-bodies.js";

/**
 * Jira's answers as `jira.js` (pinned; the client the code uses) models them, and Confluence's REST v1
 * answers as `confluence.js` (pinned, types only: its runtime wants Node 22) models them. A mock's body
 * goes through `jiraBody("comment", {...})` / `confluenceBody("content", {...})`: a field the model
 * lacks or one of the wrong type fails `npm run typecheck` (in `.ci/run`). As with GitHub's responses,
 * required fields are not demanded (`Sent`): mocks carry what the code reads.
 */

/** Jira sends `description: null` for an issue without one; jira.js types the field as a Document. */
type JiraIssue = Omit<Issue, "fields"> & { fields: Omit<Issue["fields"], "description"> & { description?: Document | null } };
export interface JiraBodies {
  /** GET /rest/api/3/myself */
  myself: JiraUser;
  /** GET /rest/api/3/issue/{key} */
  issue: JiraIssue;
  /** GET or POST /rest/api/3/issue/{key}/comment[/{id}] */
  comment: Comment;
  /** GET /rest/api/3/issue/{key}/comment */
  comments: PageOfComments;
  /** POST /rest/api/3/issue */
  created: CreatedIssue;
  /** GET /rest/api/3/project/search */
  projects: PageProject;
  /** Any refusal (4xx) */
  error: ErrorCollection;
}

export interface ConfluenceBodies {
  /** GET /wiki/rest/api/user/current */
  user: ConfluenceUser;
  /** GET, POST, PUT /wiki/rest/api/content[/{id}] */
  content: Content;
  /** GET /wiki/rest/api/content/{id}/child/comment */
  comments: ContentArray;
  /** GET /wiki/rest/api/search */
  search: SearchPageResponseSearchResult;
}

export function jiraBody<K extends keyof JiraBodies>(_kind: K, body: Sent<JiraBodies[K]>): Sent<JiraBodies[K]> {
  return typedBody(body);
}

export function confluenceBody<K extends keyof ConfluenceBodies>(_kind: K, body: Sent<ConfluenceBodies[K]>): Sent<ConfluenceBodies[K]> {
  return typedBody(body);
}
