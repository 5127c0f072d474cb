/* Search with explanations: POST .../search with explain on and reinforce off (browsing does not
   count as a recall), the presets, `now`, `as_of` and the filters. Each result shows the channels
   that found it, the path of links that reached it and its score factors as bars; a toggle runs
   plain vector search beside the chosen ranking. */
import { call, agentPath } from "./api.js";
import { h, link, date, num, field, errorBox } from "./dom.js";
import { agentHref } from "./session.js";

const TYPES = ["episodic", "semantic", "procedural"];
let searches = 0;  // counted on <body data-search-done>, so a test knows when an answer is drawn

function input(name, props) { return h("input", { name, ...(props || {}) }); }

function controls() {
  const preset = h("select", { name: "preset" }, ["", "balanced", "fast", "deep", "vector"].map(
    (p) => h("option", { value: p }, p || "default")));
  const types = h("fieldset", {}, h("legend", {}, "Types"),
    TYPES.map((t) => h("label", { class: "inline" }, input("type", { type: "checkbox", value: t }), " " + t)));
  const main = h("div", { class: "grid" },
    field("Query", input("query", { type: "search", required: true, maxlength: "4000" })),
    field("Preset", preset), field("Results", input("top_k", { type: "number", min: "1", max: "100", value: "10" })),
    field("Compare with plain vector search", input("compare", { type: "checkbox" })));
  const more = h("details", { class: "more" }, h("summary", {}, "Time and filters"), h("div", { class: "grid" },
    field("Now (reference time, UTC)", input("now", { type: "datetime-local" })),
    field("As of (what was current then, UTC)", input("as_of", { type: "datetime-local" })),
    field("Since", input("since", { type: "datetime-local" })), field("Until", input("until", { type: "datetime-local" })),
    field("User", input("user_id")), field("Session", input("session_id")),
    field("Tags", input("tags"), "Comma-separated; every tag must be present."), types,
    field("Include archived", input("include_archived", { type: "checkbox" })),
    field("Include superseded versions", input("include_superseded", { type: "checkbox", checked: true }))));
  return [main, more];
}

function request(form) {
  const v = (n) => form.elements[n].value.trim();
  const body = { query: v("query"), top_k: Number(v("top_k") || 10), explain: true, reinforce: false,
    include_archived: form.elements.include_archived.checked,
    include_superseded: form.elements.include_superseded.checked };
  ["preset", "now", "as_of", "since", "until", "user_id", "session_id"].forEach((n) => { if (v(n)) body[n] = v(n); });
  if (v("tags")) body.tags = v("tags").split(",").map((t) => t.trim()).filter(Boolean);
  const types = [...form.querySelectorAll("input[name=type]:checked")].map((c) => c.value);
  if (types.length) body.types = types;
  return body;
}

function factorChart(factors) {
  const entries = Object.entries(factors).filter(([k]) => k !== "score");
  const top = Math.max(1e-9, ...entries.map(([, x]) => Math.abs(x)));
  const rows = entries.map(([name, x]) => {
    const bar = h("span", { class: x < 0 ? "negative" : "" });
    bar.style.width = Math.round((Math.abs(x) / top) * 100) + "%";
    return h("tr", {}, h("th", { scope: "row" }, name), h("td", {}, h("div", { class: "bar", "aria-hidden": "true" }, bar)),
      h("td", { class: "value" }, num(x, 3)));
  });
  return h("table", { class: "factors" }, h("caption", {}, "Score factors (score " + num(factors.score || 0, 3) + ")"),
    h("tbody", {}, rows));
}

function pathList(agent, explanation, texts) {
  const name = (id) => link(agentHref(agent, "/memories/" + id), texts[id] || "memory " + id.slice(0, 8));
  return h("ol", { class: "path", "aria-label": "Path of links" }, explanation.path.map((step) => h("li", {},
    step.from ? "via " + step.kind + " link (" + num(step.weight) + "): " : "entry point: ", name(step.unit_id))));
}

function explain(agent, hit, texts) {
  const e = hit.explanation;
  const notes = ["preset " + e.preset, e.hops + " hop(s)"];
  if (e.time_window) notes.push("time words “" + e.time_window.phrase + "”");
  if (e.superseded_by) notes.push("superseded by a newer version");
  return h("details", { class: "explanation" }, h("summary", {}, "Why this result"),
    h("p", {}, notes.join(" · ")), pathList(agent, e, texts), factorChart(e.factors));
}

function results(agent, title, hits) {
  const texts = Object.fromEntries(hits.map((r) => [r.id, r.text]));
  const items = hits.map((r) => h("li", { class: "result" },
    h("p", { class: "text" }, link(agentHref(agent, "/memories/" + r.id), r.text)),
    h("p", { class: "meta" }, "score " + num(r.weight, 3) + " · " + r.memory_type + " · " + date(r.event_date)),
    h("ul", { class: "channels", "aria-label": "Found by" }, r.explanation.channels.map((c) => h("li", { class: "badge" }, c))),
    explain(agent, r, texts)));
  return h("section", { class: "ranking", "aria-label": title }, h("h2", {}, title),
    items.length ? h("ol", { class: "results" }, items) : h("p", {}, "Nothing found."));
}

async function run(agent, form, out) {
  const body = request(form);
  const search = (b) => call("POST", agentPath(agent, "/search"), b).then((r) => r.results);
  const compare = form.elements.compare.checked;
  const [main, plain] = await Promise.all([search(body), compare ? search({ ...body, preset: "vector" }) : null]);
  const label = "Ranking (" + (body.preset || "default") + ")";
  out.replaceChildren(h("div", { class: compare ? "side-by-side" : "" }, results(agent, label, main),
    compare ? results(agent, "Plain vector search", plain) : null));
}

export async function searchPage(agent) {
  const out = h("div", { id: "search-results", "aria-live": "polite" });
  const form = h("form", { class: "card", role: "search" }, controls(), h("button", { type: "submit" }, "Search"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    run(agent, form, out).catch((error) => out.replaceChildren(errorBox(error)))
      .finally(() => document.body.setAttribute("data-search-done", String(++searches)));
  });
  return ["Search " + agent, h("section", {}, form, out)];
}
