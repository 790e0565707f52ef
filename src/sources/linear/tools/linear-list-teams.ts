import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { toolJson, type LinearToolDeps } from "./tool-deps.js";

export const LinearListTeamsInput = z.object({});

const QUERY = `query OpenSweListTeams {
  teams(first: 250) { nodes { id key name description } }
}`;

const Answer = z.object({ teams: z.object({ nodes: z.array(z.record(z.string(), z.unknown())) }) });

export function linearListTeamsTool(deps: LinearToolDeps) {
  return tool(
    async () => {
      const { teams } = await deps.api.request(QUERY, {}, Answer);
      return toolJson(teams.nodes);
    },
    { name: "linear_list_teams", description: "List the Linear workspace's teams (id, key, name).", schema: LinearListTeamsInput },
  );
}
