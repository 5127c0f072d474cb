/* The agents the key may see: an admin key pages through GET /v1/agents (with the last write);
   any other key has its own list. Each row adds the agent's counts from GET .../stats. */
import { call, agentPath, query } from "./api.js";
import { h, link, table, date, pager } from "./dom.js";
import { whoAmI, agentHref } from "./session.js";

const PAGE = 20;

async function agentPage(scope, offset) {
  if (!scope.admin) {
    const ids = scope.agent_ids.slice(offset, offset + PAGE + 1);
    return ids.map((id) => ({ agent_id: id, last_write: undefined }));
  }
  return call("GET", "/v1/agents" + query({ limit: PAGE + 1, offset }));
}

function row(summary, stats) {
  const types = Object.entries(stats.units_by_type).map(([t, n]) => t + " " + n).join(", ");
  return [
    link(agentHref(summary.agent_id, "/memories"), summary.agent_id),
    String(stats.units), types || "—", String(stats.archived_units), String(stats.entities),
    String(stats.documents), String(stats.links),
    summary.last_write === undefined ? "not listed for this key" : date(summary.last_write),
  ];
}

export async function agentsPage(params) {
  const scope = await whoAmI();
  const offset = Number(params.get("offset") || 0);
  const page = await agentPage(scope, offset);
  const shown = page.slice(0, PAGE);
  const stats = await Promise.all(shown.map((a) => call("GET", agentPath(a.agent_id, "/stats"))));
  const rows = shown.map((a, i) => row(a, stats[i]));
  const note = !scope.auth ? "This server runs without keys: every agent in the store." :
    scope.admin ? "An admin key: every agent in the store." :
      "This key may act for " + scope.agent_ids.length + " agent(s).";
  const go = (o) => { location.hash = "#/agents?offset=" + o; };
  return ["Agents", h("section", {},
    h("p", {}, note),
    rows.length ? table("Agents, by id", ["Agent", "Units", "By type", "Archived", "Entities", "Documents",
      "Links", "Last write"], rows) : h("p", {}, "No agent has stored anything yet."),
    pager("Agent pages", offset, PAGE, page.length > PAGE ? offset + PAGE : null, go))];
}
