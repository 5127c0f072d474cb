/* The memory browser's shell: who the key is, the navigation, and the router. Pages live in
   their own modules; each renders into <main> from the location's hash, e.g.
   #/agents/alice/memories?offset=50. The hash names agents and memories, never the key. */
import { apiKey, forgetApiKey, ApiError } from "./api.js";
import { whoAmI, knownScope, resetScope, agentHref } from "./session.js";
import { h, link, errorBox } from "./dom.js";
import { signIn } from "./signin.js";
import { agentsPage } from "./agents.js";
import { memoriesPage } from "./memories.js";
import { memoryPage } from "./memory.js";
import { searchPage } from "./search.js";
import { entitiesPage, entityPage } from "./entities.js";
import { graphPage } from "./graphpage.js";
import { factsPage } from "./facts.js";

const ROUTES = [
  [/^agents$/, (m, q) => agentsPage(q)],
  [/^agents\/([^/]+)\/memories$/, (m, q) => memoriesPage(m[1], q)],
  [/^agents\/([^/]+)\/memories\/([^/]+)$/, (m) => memoryPage(m[1], m[2])],
  [/^agents\/([^/]+)\/search$/, (m) => searchPage(m[1])],
  [/^agents\/([^/]+)\/entities$/, (m, q) => entitiesPage(m[1], q)],
  [/^agents\/([^/]+)\/entities\/(.+)$/, (m) => entityPage(m[1], m[2])],
  [/^agents\/([^/]+)\/graph$/, (m, q) => graphPage(m[1], q)],
  [/^agents\/([^/]+)\/facts$/, (m, q) => factsPage(m[1], q)],
];

function navigation(agent) {
  const items = [link("#/agents", "Agents")];
  if (agent) {
    items.push(link(agentHref(agent, "/memories"), "Memories"), link(agentHref(agent, "/search"), "Search"),
      link(agentHref(agent, "/entities"), "Entities"), link(agentHref(agent, "/facts"), "Facts"),
      link(agentHref(agent, "/graph"), "Graph"));
  }
  const nav = h("ul", {}, items.map((a) => h("li", {}, a)));
  const scope = knownScope();
  const out = scope && scope.auth ? h("button", { type: "button", id: "sign-out", on: { click: signOut } }, "Sign out") : null;
  document.getElementById("nav").replaceChildren(nav, out || "");
  document.querySelectorAll("#nav a").forEach((a) => {
    const href = a.getAttribute("href"), here = location.hash.split("?")[0];
    if (here === href || (href !== "#/agents" && here.startsWith(href))) a.setAttribute("aria-current", "page");
  });
}

function signOut() {
  forgetApiKey();
  resetScope();
  if (location.hash === "#/signin") route(); else location.hash = "#/signin";
}

let routing = 0;  // the latest navigation; an older one still loading draws nothing

async function route() {
  const mine = ++routing;
  const [path, search] = location.hash.replace(/^#\/?/, "").split("?");
  const main = document.getElementById("main");
  const params = new URLSearchParams(search || "");
  try {
    if (path === "signin" || (!apiKey() && !(await keysOff()))) {
      navigation(null);
      return render(main, "Sign in", signIn(() => { resetScope(); location.hash = "#/agents"; }));
    }
    await whoAmI();
    const found = ROUTES.map(([re, page]) => [path.match(re), page]).find(([m]) => m);
    const [match, page] = found || [["agents"], ROUTES[0][1]];
    const decoded = match.map((part) => decodeURIComponent(part));
    navigation(decoded[0] === "agents" ? null : decoded[1]);
    const [title, body] = await page(decoded, params);
    if (mine === routing) render(main, title, body);
  } catch (error) {
    if (mine !== routing) return;
    if (error instanceof ApiError && error.status === 401) { signOut(); return; }
    render(main, "Error", errorBox(error));
  }
}

/* Whether the server runs without keys (serve --no-auth, fleet-memory ui): no sign-in then. */
async function keysOff() {
  try { return !(await whoAmI()).auth; } catch (error) { return false; }
}

function render(main, title, body) {
  document.title = title + " · fleet-memory";
  main.replaceChildren(h("h1", {}, title), body);
  window.scrollTo(0, 0);
  main.focus({ preventScroll: true });
  document.body.setAttribute("data-page-ready", location.hash || "#/");
}

window.addEventListener("hashchange", () => { document.body.removeAttribute("data-page-ready"); route(); });
route();
