export const SETTINGS_USAGE = `usage:
  open-swe settings repos list | enable <owner/repo> | disable <owner/repo>
  open-swe settings profile get <login> | set <login> key=value…   (autoFixCi, autoReview, model, effort)
  open-swe settings team-model get | set <agent|reviewer> <model|none>
  open-swe settings autofix get <owner/repo#n> | set <owner/repo#n> on|off
  open-swe settings installed list
  open-swe settings identity list | get <source:user> | set <source:user> <github-login> | remove <source:user>
  open-swe settings source-repo list | get <source:where> | set <source:where> <owner/repo> | remove <source:where>
      (source:user: slack:<user id>, linear:<user id>; source:where: slack:<channel id>, linear:<team id>)
  open-swe settings tool-policy get | set <tool|prefix*> <always_allow|ask|deny|none>
  open-swe settings mcp-server list | set <name> '<json>' | remove <name>
  open-swe settings mcp-secret list | set <NAME> <value> | remove <NAME>   (needs OPEN_SWE_SECRET_KEY)`;
