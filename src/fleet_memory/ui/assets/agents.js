/* The agents the key may see: an admin key pages through GET /v1/agents; any other key has its own
   list. Each row adds the agent's counts (GET .../stats) and its size class and last write
   (GET .../size). */
import { call, agentPath, query } from "./api.js";
import { h, link, table, date, pager } from "./dom.js";
import { whoAmI, agentHref } from "./session.js";

const PAGE = 20;

async function agentPage(scope, offset) {
  if (!scope.admin) {
    const ids = scope.agent_ids.slice(offset, offset + PAGE + 1);
    return ids.map((id) => ({ agent_id: id }));
  }
  return call("GET", "/v1/agents" + query({ limit: PAGE + 1, offset }));
}

function sizeClass(size) {
  if (size.size_class === "small") return "small (under " + size.boundary_units + " units)";
  return "large, " + (size.own_indexes ? "own indexes" : "own indexes not built yet");
}

function row(summary, stats, size) {
  const types = Object.entries(stats.units_by_type).map(([t, n]) => t + " " + n).join(", ");
  return [
    link(agentHref(summary.agent_id, "/memories"), summary.agent_id),
    String(stats.units), types || "—", String(stats.archived_units), String(stats.entities),
    String(stats.documents), String(stats.links), sizeClass(size), date(size.last_write),
  ];
}

export async function agentsPage(params) {
  const scope = await whoAmI();
  const offset = Number(params.get("offset") || 0);
  const page = await agentPage(scope, offset);
  const shown = page.slice(0, PAGE);
  const [stats, sizes] = await Promise.all(["/stats", "/size"].map((tail) =>
    Promise.all(shown.map((a) => call("GET", agentPath(a.agent_id, tail))))));
  const rows = shown.map((a, i) => row(a, stats[i], sizes[i]));
  const note = !scope.auth ? "This server runs without keys: every agent in the store." :
    scope.admin ? "An admin key: every agent in the store." :
      "This key may act for " + scope.agent_ids.length + " agent(s).";
  const go = (o) => { location.hash = "#/agents?offset=" + o; };
  return ["Agents", h("section", {},
    h("p", {}, note),
    rows.length ? table("Agents, by id", ["Agent", "Units", "By type", "Archived", "Entities", "Documents",
      "Links", "Size class", "Last write"], rows) : h("p", {}, "No agent has stored anything yet."),
    pager("Agent pages", offset, PAGE, page.length > PAGE ? offset + PAGE : null, go))];
}
