/* One agent's memories, oldest first, a server-side page at a time (GET .../memories with limit,
   offset and the filters: types, user, session, event dates, tags, metadata, archived, superseded
   and full text `q`). The filters live in the page's address, so a filtered page can be kept. */
import { call, agentPath, query } from "./api.js";
import { h, link, table, date, num, pager, field, errorBox } from "./dom.js";
import { agentHref } from "./session.js";

const PAGE = 25;
const TYPES = ["episodic", "semantic", "procedural"];
const TEXTS = ["q", "user_id", "session_id", "since", "until", "tags", "metadata"];

export function status(unit) {
  if (unit.archived_at) return "archived " + date(unit.archived_at);
  if (unit.valid_until) return "superseded " + date(unit.valid_until);
  return "current";
}

function input(name, value, props) { return h("input", { name, value: value || "", ...(props || {}) }); }

/* The filter form, filled from the address; submitting it opens the first page of the new list. */
function filters(agent, params) {
  const types = h("fieldset", {}, h("legend", {}, "Types"), TYPES.map((t) => h("label", { class: "inline" },
    input("type", t, { type: "checkbox", checked: params.getAll("type").includes(t) }), " " + t)));
  const form = h("form", { class: "card", "aria-label": "Filters", id: "memory-filters" },
    h("div", { class: "grid" },
      field("Text contains", input("q", params.get("q"), { type: "search", maxlength: "10000" }),
        "Words, \"a phrase\", -word; English stemming."),
      field("User", input("user_id", params.get("user_id"), { maxlength: "128" })),
      field("Session", input("session_id", params.get("session_id"), { maxlength: "128" })),
      field("Event date from (UTC)", input("since", params.get("since"), { type: "datetime-local" })),
      field("Event date until (UTC)", input("until", params.get("until"), { type: "datetime-local" })),
      field("Tags", input("tags", params.get("tags")), "Comma-separated; every tag must be present."),
      field("Metadata", input("metadata", params.get("metadata")), "A JSON object, e.g. {\"project\": \"billing\"}."),
      types,
      field("Include archived memories", input("archived", "1", { type: "checkbox", checked: params.get("archived") === "1" })),
      field("Hide superseded versions", input("current", "1", { type: "checkbox", checked: params.get("current") === "1" }))),
    h("div", { class: "actions" }, h("button", { type: "submit" }, "Apply filters"),
      link(agentHref(agent, "/memories"), "Clear filters")));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const next = new URLSearchParams();
    new FormData(form).forEach((value, name) => { if (String(value).trim()) next.append(name, String(value).trim()); });
    location.hash = agentHref(agent, "/memories" + (next.toString() ? "?" + next : ""));
  });
  return form;
}

/* The REST query of the page's address. */
function restQuery(params, offset) {
  const out = { limit: PAGE, offset, types: params.getAll("type"),
    include_archived: params.get("archived") === "1" ? "true" : "",
    include_superseded: params.get("current") === "1" ? "false" : "" };
  TEXTS.forEach((name) => { if (params.get(name)) out[name] = params.get(name); });
  if (out.tags) out.tags = out.tags.split(",").map((t) => t.trim()).filter(Boolean);
  return query(out);
}

function listing(agent, page) {
  const rows = page.units.map((u) => [
    link(agentHref(agent, "/memories/" + u.id), u.text, { class: "unit-link" }),
    date(u.event_date), u.memory_type, num(u.effective_importance), num(u.importance), String(u.access_count), status(u)]);
  return rows.length ? table("Memories, oldest first; importance now is the stored one decayed since the last access",
    ["Text", "Event date", "Type", "Importance now", "Stored importance", "Accesses", "Status"], rows)
    : h("p", {}, "No memories on this page.");
}

export async function memoriesPage(agent, params) {
  const offset = Number(params.get("offset") || 0);
  const go = (o) => {
    const next = new URLSearchParams(params);
    next.set("offset", String(o));
    location.hash = agentHref(agent, "/memories?" + next);
  };
  let body;
  try {
    const page = await call("GET", agentPath(agent, "/memories" + restQuery(params, offset)));
    body = [listing(agent, page), pager("Memory pages", offset, PAGE, page.next_offset, go)];
  } catch (error) {
    if (error.status !== 422) throw error;  // a refused filter: said beside the form, which stays
    body = errorBox(error);
  }
  return ["Memories of " + agent, h("section", {}, filters(agent, params), body)];
}
