/* What lies around one memory, for its page: the entities it mentions (GET .../entities), its links
   by kind and weight (GET .../links) and the document it was split from with its sentence marked
   (GET .../document). Text is only ever set as text (dom.js), never parsed as markup. */
import { h, link, table, date, num } from "./dom.js";
import { agentHref } from "./session.js";

function section(id, title, ...body) {
  return h("section", { "aria-labelledby": id }, h("h2", { id }, title), body);
}

export function entitiesOf(agent, entities) {
  return section("entities-title", "Entities",
    entities.length ? h("ul", { class: "entity-list" }, entities.map((e) => h("li", {},
      link(agentHref(agent, "/entities/" + encodeURIComponent(e.name)), e.name), " (" + e.label + ")")))
      : h("p", {}, "It mentions no entity."));
}

function weightBar(weight) {
  const bar = h("span", { class: "bar", "aria-hidden": "true" }, h("span", {}));
  bar.firstChild.style.width = Math.round(Math.max(0, Math.min(1, weight)) * 100) + "%";
  return h("span", { class: "weight" }, bar, " ", h("span", { class: "value" }, num(weight)));
}

export function linksOf(agent, links) {
  const rows = links.map((l) => [l.kind, weightBar(l.weight),
    link(agentHref(agent, "/memories/" + l.unit.id), l.unit.text, { class: "linked-unit" }), date(l.unit.event_date)]);
  return section("links-title", "Links",
    rows.length ? table("Links by kind (semantic, entity, temporal), strongest first", ["Kind", "Weight", "Memory", "Event date"], rows)
      : h("p", {}, "No links."));
}

export function documentOf(doc) {
  if (!doc) return section("document-title", "Source document", h("p", {}, "Stored without one (a consolidated memory)."));
  const text = doc.start === null ? [doc.content]
    : [doc.content.slice(0, doc.start), h("mark", {}, doc.content.slice(doc.start, doc.end)), doc.content.slice(doc.end)];
  return section("document-title", "Source document",
    h("p", { class: "meta" }, "Stored " + date(doc.created_at) + ", dated " + date(doc.event_date)
      + (doc.source ? ", from " + doc.source : "") + (doc.speaker ? ", said by " + doc.speaker : "")
      + (doc.start === null ? "; this memory's sentence is not found in it" : "; this memory's sentence is marked")),
    h("blockquote", { class: "document" }, text));
}
