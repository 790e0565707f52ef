import { HttpException, Version3Client } from "jira.js";
import { errorMessage } from "../../errors.js";
import { httpFailureText } from "../http-failure-text.js";

export interface JiraCredentials {
  baseUrl: string;
  email: string;
  apiToken: string;
}

export function createJiraApi(c: JiraCredentials): Version3Client {
  return new Version3Client({ host: c.baseUrl, authentication: { basic: { email: c.email, apiToken: c.apiToken } } });
}

export const jiraStatus = (err: unknown): number | undefined => (err instanceof HttpException ? err.status : undefined);

/** What a tool tells the model when Jira answers an error: the status and Jira's own message, never a stack. */
export function jiraRefusal(err: unknown): string {
  const status = jiraStatus(err);
  if (status === undefined) throw err;
  return httpFailureText("Jira", status, errorMessage(err).slice(0, 300));
}
