/** Bots (ours included) never drive the app: that is how comment loops between bots are avoided. */
export function isBotSender(sender: { login: string; type?: string } | null | undefined, botLogins: readonly string[]): boolean {
  if (!sender) return true;
  const login = sender.login.toLowerCase();
  return sender.type === "Bot" || login.endsWith("[bot]") || botLogins.includes(login);
}
