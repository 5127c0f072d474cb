/* Entities: the list (most mentioned first, a server-side page at a time) with merging; one
   entity with its aliases, its mentions by month and renaming. Each change is one REST call
   (.../entities/merge, .../entities/{name}/rename) after a confirmation. */
import { call, agentPath, query } from "./api.js";
import { h, link, table, date, pager, field, confirmAction, errorBox, say } from "./dom.js";
import { agentHref } from "./session.js";

const PAGE = 50;

function entityHref(agent, name) { return agentHref(agent, "/entities/" + encodeURIComponent(name)); }

function mergeForm(agent, names) {
  const list = h("datalist", { id: "entity-names" }, names.map((n) => h("option", { value: n })));
  const keep = h("input", { name: "keep", list: "entity-names", required: true });
  const drop = h("input", { name: "drop", list: "entity-names", required: true });
  const problem = h("div", {});
  const form = h("form", { class: "card", "aria-labelledby": "merge-title" }, h("h2", { id: "merge-title" }, "Merge two entities"),
    list, field("Entity that stays", keep), field("Entity merged into it", drop, "Its mentions move; its names become aliases."),
    problem, h("button", { type: "submit" }, "Merge"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!(await confirmAction("Merge “" + drop.value + "” into “" + keep.value + "”?", "Merge"))) return;
    try {
      const kept = await call("POST", agentPath(agent, "/entities/merge"), { keep: keep.value, drop: drop.value });
      say("Merged into " + kept.name + ".");
      location.hash = entityHref(agent, kept.name);
    } catch (error) { problem.replaceChildren(errorBox(error)); }
  });
  return form;
}

export async function entitiesPage(agent, params) {
  const offset = Number(params.get("offset") || 0);
  const page = await call("GET", agentPath(agent, "/entities" + query({ limit: PAGE + 1, offset })));
  const shown = page.slice(0, PAGE);
  const rows = shown.map((e) => [link(entityHref(agent, e.name), e.name), e.label, String(e.mention_count),
    e.aliases.join(", ") || "—", date(e.first_seen), date(e.last_seen)]);
  const go = (o) => { location.hash = agentHref(agent, "/entities?offset=" + o); };
  return ["Entities of " + agent, h("section", {},
    rows.length ? table("Entities, most mentioned first", ["Name", "Label", "Mentions", "Aliases", "First seen", "Last seen"], rows)
      : h("p", {}, "No entities yet."),
    pager("Entity pages", offset, PAGE, page.length > PAGE ? offset + PAGE : null, go),
    mergeForm(agent, shown.map((e) => e.name)))];
}

function mentionsByMonth(units) {
  const counts = {};
  units.forEach((u) => { const m = u.event_date.slice(0, 7); counts[m] = (counts[m] || 0) + 1; });
  const months = Object.keys(counts).sort();
  const top = Math.max(1, ...Object.values(counts));
  const rows = months.map((m) => {
    const bar = h("span", {});
    bar.style.width = Math.round((counts[m] / top) * 100) + "%";
    return h("tr", {}, h("th", { scope: "row" }, m), h("td", {}, h("div", { class: "bar", "aria-hidden": "true" }, bar)),
      h("td", { class: "value" }, String(counts[m])));
  });
  return h("table", { class: "factors" }, h("caption", {}, "Mentions by month (latest " + units.length + " memories)"),
    h("tbody", {}, rows));
}

function renameForm(agent, entity) {
  const name = h("input", { name: "name", required: true, value: entity.name });
  const problem = h("div", {});
  const form = h("form", { class: "card", "aria-labelledby": "rename-title" }, h("h2", { id: "rename-title" }, "Rename"),
    field("New name", name, "The old name becomes an alias."), problem, h("button", { type: "submit" }, "Rename"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!(await confirmAction("Rename “" + entity.name + "” to “" + name.value + "”?", "Rename"))) return;
    try {
      const renamed = await call("POST", agentPath(agent, "/entities/" + encodeURIComponent(entity.id) + "/rename"),
        { name: name.value });
      say("Renamed.");
      location.hash = entityHref(agent, renamed.name);
    } catch (error) { problem.replaceChildren(errorBox(error)); }
  });
  return form;
}

export async function entityPage(agent, name) {
  const detail = await call("GET", agentPath(agent, "/entities/" + encodeURIComponent(name) + "?unit_limit=100"));
  const e = detail.entity;
  return [e.name, h("section", {},
    h("p", {}, e.label + " · " + e.mention_count + " mention(s) · aliases: " + (e.aliases.join(", ") || "none") +
      " · first seen " + date(e.first_seen) + " · last seen " + date(e.last_seen)),
    h("p", {}, link(agentHref(agent, "/graph?entity=" + encodeURIComponent(e.name)), "Graph around " + e.name),
      " · ", link(agentHref(agent, "/facts?entity=" + encodeURIComponent(e.name)), "Facts about " + e.name + " that changed")),
    mentionsByMonth(detail.units),
    h("h2", {}, "Memories that mention it"),
    h("ul", {}, detail.units.map((u) => h("li", {}, link(agentHref(agent, "/memories/" + u.id), u.text),
      " (" + date(u.event_date) + ")"))),
    renameForm(agent, e))];
}
