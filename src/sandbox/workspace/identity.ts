export interface GitPerson {
  name: string;
  email: string;
}

export const BOT_IDENTITY: GitPerson = { name: "open-swe[bot]", email: "open-swe[bot]@users.noreply.github.com" };

export function coAuthoredByTrailer(person: GitPerson): string {
  return `Co-authored-by: ${person.name.replace(/[<>\n]/g, "")} <${person.email.replace(/[<>\s]/g, "")}>`;
}
