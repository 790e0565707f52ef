import { z } from "zod";
import { CommandLineError } from "../shared/parse-command.js";
import { checkModelId } from "../config/check-model-id.js";
import { ToolPolicy } from "../config/tool-policy.js";
import type { SecretBox } from "../store/secret-box.js";
import { ProfilePatch, type SettingsStore } from "../store/settings-store.js";

/** A settings or operator command used wrongly: exit 2, like an unknown option. */
export class UsageError extends CommandLineError {}

function parseProfileAssignments(pairs: string[]): z.infer<typeof ProfilePatch> {
  const raw: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq < 1) throw new UsageError(`expected key=value, got "${pair}"`);
    const key = pair.slice(0, eq);
    const value = pair.slice(eq + 1);
    raw[key] = value === "true" ? true : value === "false" ? false : value;
  }
  const parsed = ProfilePatch.safeParse(raw);
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    const field = i?.path.join(".") || "key";
    throw new UsageError(`invalid profile ${field}: ${i?.message ?? "invalid"}${field in raw ? ` (got "${String(raw[field])}")` : ""}`);
  }
  return parsed.data;
}

/** `open-swe settings …`: prints JSON results to `out`; throws UsageError with a reason for bad input. */
export async function runSettingsCli(argv: string[], store: SettingsStore, out: (line: string) => void, box: SecretBox | null = null): Promise<void> {
  const [area, verb, ...rest] = argv;
  const print = (v: unknown) => out(JSON.stringify(v, null, 2));
  const need = (n: number) => {
    if (rest.length < n) throw new UsageError(`missing argument for "settings ${area} ${verb}" (see open-swe settings --help)`);
  };
  const key = `${area ?? ""} ${verb ?? ""}`.trim();
  try {
    switch (key) {
      case "repos list":
        return print(await store.listEnabledRepos());
      case "repos enable":
        need(1);
        await store.enableRepo(rest[0]!);
        return print(await store.listEnabledRepos());
      case "repos disable":
        need(1);
        await store.disableRepo(rest[0]!);
        return print(await store.listEnabledRepos());
      case "profile get":
        need(1);
        return print(await store.getProfile(rest[0]!));
      case "profile set": {
        need(2);
        const [login, ...pairs] = rest;
        const patch = parseProfileAssignments(pairs);
        const refusal = patch.model ? checkModelId(patch.model) : null;
        if (refusal) throw new UsageError(refusal);
        return print(await store.setProfile(login!, patch));
      }
      case "team-model get":
        return print(await store.getTeamModels());
      case "team-model set": {
        need(2);
        const role = rest[0];
        if (role !== "agent" && role !== "reviewer") throw new UsageError(`role must be agent or reviewer, not "${role}"`);
        const refusal = rest[1] === "none" ? null : checkModelId(rest[1]!);
        if (refusal) throw new UsageError(refusal);
        return print(await store.setTeamModel(role, rest[1] === "none" ? null : rest[1]!));
      }
      case "autofix get":
        need(1);
        return print({ pr: rest[0], autofix: await store.getAutofix(rest[0]!) });
      case "autofix set": {
        need(2);
        const v = rest[1]?.toLowerCase();
        if (v !== "on" && v !== "off") throw new UsageError(`autofix takes on or off, not "${rest[1]}"`);
        await store.setAutofix(rest[0]!, v === "on");
        return print({ pr: rest[0], autofix: v === "on" });
      }
      case "tool-policy get":
        return print(await store.getToolPolicies());
      case "tool-policy set": {
        need(2);
        const policy = rest[1]!;
        if (policy !== "none" && !ToolPolicy.safeParse(policy).success) throw new UsageError(`policy must be always_allow, ask, deny or none, not "${policy}"`);
        return print(await store.setToolPolicy(rest[0]!, policy === "none" ? null : (policy as ToolPolicy)));
      }
      case "mcp-server list":
        return print(await store.getMcpServers());
      case "mcp-server set": {
        need(2);
        let config: unknown;
        try {
          config = JSON.parse(rest.slice(1).join(" "));
        } catch {
          throw new UsageError(
            `the server must be JSON, e.g. '{"url":"https://mcp.example.com/mcp","headers":{"Authorization":"Bearer \${DOCS_TOKEN}"}}' or '{"command":"npx","args":["-y","some-mcp-server"]}'`,
          );
        }
        return print(await store.setMcpServer(rest[0]!, config));
      }
      case "mcp-server remove":
        need(1);
        return print(await store.setMcpServer(rest[0]!, null));
      case "mcp-secret list":
        return print(await store.listMcpSecretNames());
      case "mcp-secret set":
      case "mcp-secret remove": {
        need(verb === "set" ? 2 : 1);
        if (!box) throw new UsageError("secrets are stored encrypted: set OPEN_SWE_SECRET_KEY (64 hex characters) first");
        return print(await store.setMcpSecret(rest[0]!, verb === "set" ? rest.slice(1).join(" ") : null, box));
      }
      case "installed list":
        return print(await store.listInstalled());
      case "identity list":
        return print(await store.listIdentities());
      case "identity get":
        need(1);
        return print({ user: rest[0], login: await store.getIdentity(rest[0]!) });
      case "identity set":
        need(2);
        await store.setIdentity(rest[0]!, rest[1]!);
        return print({ user: rest[0], login: await store.getIdentity(rest[0]!) });
      case "identity remove":
        need(1);
        return print({ user: rest[0], removed: await store.removeIdentity(rest[0]!) });
      case "source-repo list":
        return print(await store.listSourceRepos());
      case "source-repo get":
        need(1);
        return print({ where: rest[0], repo: await store.getSourceRepo(rest[0]!) });
      case "source-repo set":
        need(2);
        await store.setSourceRepo(rest[0]!, rest[1]!);
        return print({ where: rest[0], repo: await store.getSourceRepo(rest[0]!) });
      case "source-repo remove":
        need(1);
        return print({ where: rest[0], removed: await store.removeSourceRepo(rest[0]!) });
      default:
        throw new UsageError(`unknown settings command "${key}" (see open-swe settings --help)`);
    }
  } catch (err) {
    if (err instanceof z.ZodError) throw new UsageError(err.issues[0]?.message ?? "invalid value");
    throw err;
  }
}
