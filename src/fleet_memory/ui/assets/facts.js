/* Facts that change, for one holder (an entity, or a user): GET .../facts. Each line of versions
   of a fact is an ordered list, oldest first: when each version was stated, its text (a link to
   its memory page), and when and why it was replaced. The holder lives in the page's address. */
import { call, agentPath, query } from "./api.js";
import { h, link, date, field, errorBox } from "./dom.js";
import { agentHref } from "./session.js";

const WHY = { update: "edited", llm: "judged by the LLM" };

function reason(r) {
  if (!r) return "";
  return " — " + (r.startsWith("rule:") ? "the " + r.slice(5) + " rule" : WHY[r] || r);
}

function holderForm(agent, params) {
  const entity = h("input", { name: "entity", value: params.get("entity") || "", maxlength: "128" });
  const user = h("input", { name: "user_id", value: params.get("user_id") || "", maxlength: "128" });
  const form = h("form", { class: "card", "aria-label": "Holder", id: "facts-holder" },
    h("div", { class: "grid" }, field("Entity", entity, "A name, alias or id."),
      field("Or a user", user, "A user id; leave the entity empty.")),
    h("button", { type: "submit" }, "Show facts"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const holder = entity.value.trim() ? { entity: entity.value.trim() } : { user_id: user.value.trim() };
    location.hash = agentHref(agent, "/facts" + query(holder));
  });
  return form;
}

function version(agent, v) {
  const u = v.unit;
  return h("li", { class: "version" + (v.replaced_by ? "" : " current") },
    h("span", { class: "meta" }, "stated " + date(u.event_date) + ": "),
    link(agentHref(agent, "/memories/" + u.id), u.text),
    h("span", { class: "meta" }, v.replaced_by ? " · replaced " + date(u.valid_until) + reason(v.reason) : " · current"));
}

function lines(agent, timeline) {
  if (!timeline.lines.length) return h("p", {}, "No fact of this holder has changed.");
  return timeline.lines.map((line, i) => h("section", { class: "fact-line", "aria-labelledby": "line-" + i },
    h("h2", { id: "line-" + i }, (line.slot ? line.slot.replace(/_/g, " ") : "A fact") + " · " + line.versions.length + " versions"),
    h("ol", {}, line.versions.map((v) => version(agent, v)))));
}

export async function factsPage(agent, params) {
  const holder = params.get("entity") ? { entity: params.get("entity") }
    : params.get("user_id") ? { user_id: params.get("user_id") } : null;
  let body = h("p", {}, "Name an entity or a user to see how their facts changed.");
  let title = "Facts that change";
  if (holder) {
    try {
      const timeline = await call("GET", agentPath(agent, "/facts" + query(holder)));
      title += " · " + (timeline.entity ? timeline.entity.name : "user " + timeline.user_id);
      body = lines(agent, timeline);
    } catch (error) {
      if (error.status !== 404 && error.status !== 422) throw error;
      body = errorBox(error);
    }
  }
  return [title, h("section", {}, holderForm(agent, params), body)];
}
