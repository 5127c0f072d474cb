/* One agent's memories, oldest first, a server-side page at a time (GET .../memories with limit
   and offset), archived ones on request. */
import { call, agentPath, query } from "./api.js";
import { h, link, table, date, num, pager, field } from "./dom.js";
import { agentHref } from "./session.js";

const PAGE = 25;

export function status(unit) {
  if (unit.archived_at) return "archived " + date(unit.archived_at);
  if (unit.valid_until) return "superseded " + date(unit.valid_until);
  return "current";
}

function filters(agent, archived) {
  const box = h("input", { type: "checkbox", checked: archived, name: "archived" });
  box.addEventListener("change", () => {
    location.hash = agentHref(agent, "/memories" + (box.checked ? "?archived=1" : ""));
  });
  return h("form", { class: "filters", "aria-label": "Filters" }, field("Include archived memories", box));
}

export async function memoriesPage(agent, params) {
  const offset = Number(params.get("offset") || 0);
  const archived = params.get("archived") === "1";
  const page = await call("GET", agentPath(agent, "/memories" +
    query({ limit: PAGE, offset, include_archived: archived ? "true" : "" })));
  const rows = page.units.map((u) => [
    link(agentHref(agent, "/memories/" + u.id), u.text, { class: "unit-link" }),
    date(u.event_date), u.memory_type, num(u.importance), String(u.access_count), status(u)]);
  const go = (o) => {
    location.hash = agentHref(agent, "/memories" + query({ offset: o, archived: archived ? "1" : "" }));
  };
  return ["Memories of " + agent, h("section", {},
    filters(agent, archived),
    rows.length ? table("Memories, oldest first", ["Text", "Event date", "Type", "Importance", "Accesses", "Status"], rows)
      : h("p", {}, "No memories on this page."),
    pager("Memory pages", offset, PAGE, page.next_offset, go))];
}
