/* One memory: its fields, its source document with its sentence marked, its entities and links
   (around.js), its versions (GET .../history), what it was consolidated from (GET .../sources), and
   the corrections — a new version (POST .../versions, which keeps the old one in the history),
   archive (POST .../archive) or restore when archived, forget (DELETE) — each after a confirmation. */
import { call, agentPath } from "./api.js";
import { h, link, table, date, num, field, confirmAction, errorBox, say } from "./dom.js";
import { agentHref } from "./session.js";
import { status } from "./memories.js";
import { entitiesOf, linksOf, documentOf } from "./around.js";

function details(u) {
  const rows = [["Text", u.text], ["Context", u.context || "—"], ["Type", u.memory_type],
    ["Event date", date(u.event_date)], ["Stored", date(u.created_at)], ["Status", status(u)],
    ["Importance", num(u.effective_importance) + " now (stored " + num(u.importance) + ", decayed since the last access)"], ["Accesses", String(u.access_count)],
    ["Last accessed", date(u.last_accessed)], ["User", u.user_id || "—"], ["Session", u.session_id || "—"],
    ["Speaker", u.speaker || "—"], ["Source", u.source || "—"], ["Tags", u.tags.join(", ") || "—"],
    ["Metadata", Object.keys(u.metadata).length ? JSON.stringify(u.metadata) : "—"],
    ["Document", u.document_id || "—"]];
  return h("dl", { class: "details" }, rows.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
}

function versions(agent, unit, history) {
  const rows = history.map((v, i) => [String(i + 1),
    v.id === unit.id ? h("strong", {}, v.text + " (this version)") : link(agentHref(agent, "/memories/" + v.id), v.text),
    date(v.event_date), date(v.valid_until)]);
  return h("section", { "aria-labelledby": "versions-title" }, h("h2", { id: "versions-title" }, "Versions"),
    table("Versions of this fact, oldest first", ["#", "Text", "Stated", "Replaced"], rows));
}

function sourcesOf(agent, sources) {
  if (!sources.length) return null;
  return h("section", { "aria-labelledby": "sources-title" }, h("h2", { id: "sources-title" }, "Consolidated from"),
    h("ul", {}, sources.map((s) => h("li", {}, link(agentHref(agent, "/memories/" + s.id), s.text)))));
}

function editForm(agent, unit, problem) {
  const text = h("textarea", { name: "content", rows: "3", required: true });
  text.value = unit.text;
  const when = h("input", { name: "event_date", type: "datetime-local" });
  const form = h("form", { class: "card", "aria-labelledby": "edit-title" },
    h("h2", { id: "edit-title" }, "Edit"), field("New version of the text", text,
      "Saved as a new version; this one stays in the history."),
    field("When it changed (UTC)", when, "Leave empty for now."),
    h("button", { type: "submit" }, "Save new version"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!(await confirmAction("Save this text as a new version?", "Save"))) return;
    try {
      const body = when.value ? { content: text.value, event_date: when.value } : { content: text.value };
      const out = await call("POST", agentPath(agent, "/memories/" + unit.id + "/versions"), body);
      say("Saved a new version.");
      location.hash = agentHref(agent, "/memories/" + out.units[0].id);
    } catch (error) { problem.replaceChildren(errorBox(error)); }
  });
  return form;
}

function actions(agent, unit, problem) {
  const path = agentPath(agent, "/memories/" + unit.id);
  const forget = h("button", { type: "button", class: "danger", on: { click: async () => {
    if (!(await confirmAction("Forget this memory for good?", "Forget"))) return;
    try {
      await call("DELETE", path);
      say("Forgot the memory.");
      location.hash = agentHref(agent, "/memories");
    } catch (error) { problem.replaceChildren(errorBox(error)); }
  } } }, "Forget");
  const toggle = (verb, question, said) => h("button", { type: "button", on: { click: async () => {
    if (!(await confirmAction(question, verb))) return;
    try { await call("POST", path + "/" + verb.toLowerCase()); say(said); window.dispatchEvent(new HashChangeEvent("hashchange")); }
    catch (error) { problem.replaceChildren(errorBox(error)); }
  } } }, verb);
  const archive = unit.archived_at ? toggle("Restore", "Bring this memory back into recall?", "Restored.")
    : toggle("Archive", "Archive this memory? It leaves recall until it is restored.", "Archived.");
  return h("div", { class: "actions" }, archive, forget);
}

export async function memoryPage(agent, id) {
  const path = agentPath(agent, "/memories/" + encodeURIComponent(id));
  const [unit, history, sources, entities, links, doc] = await Promise.all(
    ["", "/history", "/sources", "/entities", "/links?limit=50", "/document"].map((tail) => call("GET", path + tail)));
  const problem = h("div", {});
  const around = agentHref(agent, "/graph?query=" + encodeURIComponent(unit.text.slice(0, 300)));
  return ["Memory", h("section", {}, details(unit), h("p", {}, link(around, "Graph around this memory")),
    problem, actions(agent, unit, problem), documentOf(doc), entitiesOf(agent, entities),
    versions(agent, unit, history), sourcesOf(agent, sources), linksOf(agent, links), editForm(agent, unit, problem))];
}
