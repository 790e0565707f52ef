export interface GitPerson {
  name: string;
  email: string;
}

export const BOT_IDENTITY: GitPerson = { name: "open-swe[bot]", email: "open-swe[bot]@users.noreply.github.com" };

export function coAuthoredByTrailer(person: GitPerson): string {
  return `Co-authored-by: ${person.name.replace(/[<>\n]/g, "")} <${person.email.replace(/[<>\s]/g, "")}>`;
}

/** Appends Co-authored-by trailers (deduplicated) after a blank line, as GitHub expects. */
export function withCoAuthors(message: string, people: GitPerson[]): string {
  const trailers = [...new Set(people.map(coAuthoredByTrailer))].filter((t) => !message.includes(t));
  if (trailers.length === 0) return message;
  return `${message.trimEnd()}\n\n${trailers.join("\n")}\n`;
}
