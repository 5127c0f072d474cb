/* The graph page: GET .../graph (JSON) of a neighbourhood — around an entity, or a search with
   its trace — drawn by fleet_memory.viz's own renderer (/ui/viz/graph.js, the same script as the
   exported HTML page), which reads the data from <script id="graph-data">. Clicking a memory, or
   its entry in the list below the picture (for the keyboard), opens its page. */
import { call, agentPath, query } from "./api.js";
import { h, link, field } from "./dom.js";
import { agentHref } from "./session.js";

const SVGNS = "http://www.w3.org/2000/svg";
let drawn = 0;

function form(agent, params) {
  const entity = h("input", { name: "entity", value: params.get("entity") || "" });
  const q = h("input", { name: "query", type: "search", value: params.get("query") || "" });
  const limit = h("input", { name: "limit", type: "number", min: "1", max: "5000", value: params.get("limit") || "150" });
  const f = h("form", { class: "card grid", "aria-label": "Which neighbourhood" },
    field("Around the entity", entity), field("Or around a search", q), field("At most this many memories", limit),
    h("button", { type: "submit" }, "Show"));
  f.addEventListener("submit", (event) => {
    event.preventDefault();
    location.hash = agentHref(agent, "/graph" + query({ entity: entity.value.trim(), query: q.value.trim(), limit: limit.value }));
  });
  return f;
}

function canvas(data) {
  const svg = document.createElementNS(SVGNS, "svg");
  svg.setAttribute("id", "graph");
  svg.setAttribute("viewBox", "0 0 1000 700");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", "Memory graph: " + data.nodes.length + " memories, " + data.edges.length + " links");
  const json = h("script", { type: "application/json", id: "graph-data" });
  json.textContent = JSON.stringify(data);
  return h("div", { class: "graph-frame" },
    h("p", { class: "legend" }, h("span", { id: "summary" }), " ",
      h("span", { class: "key temporal" }, "temporal"), h("span", { class: "key semantic" }, "semantic"),
      h("span", { class: "key entity" }, "entity"), " ",
      h("label", {}, h("input", { type: "checkbox", id: "trace-toggle", disabled: true }), " highlight search path")),
    svg, h("div", { id: "tooltip" }), json);
}

function draw(agent) {
  if (!document.getElementById("graph-data")) return;  // another page was opened meanwhile
  const script = h("script", { src: "/ui/viz/graph.js?draw=" + (++drawn) });
  script.addEventListener("load", () => {
    document.querySelectorAll("#graph circle.node").forEach((c) => c.addEventListener("click", () => {
      location.hash = agentHref(agent, "/memories/" + c.getAttribute("data-id"));
    }));
    script.remove();
  });
  document.body.append(script);
}

export async function graphPage(agent, params) {
  const wanted = { entity: params.get("entity"), query: params.get("query"), limit: params.get("limit") || 150 };
  const data = await call("GET", agentPath(agent, "/graph" + query(wanted)));
  const list = h("ul", { class: "node-list" }, data.nodes.map((n) => h("li", {},
    link(agentHref(agent, "/memories/" + n.id), n.text))));
  setTimeout(() => draw(agent), 0);  // once the page is in the document
  return ["Graph of " + agent, h("section", {}, form(agent, params), canvas(data),
    h("details", {}, h("summary", {}, "Memories in this graph (" + data.nodes.length + ")"), list))];
}
