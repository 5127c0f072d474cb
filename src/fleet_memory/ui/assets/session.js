/* What the tab's key may do (GET /v1/me, asked once per sign-in) and the pages' addresses. */
import { call } from "./api.js";

let scope = null;

export async function whoAmI() {
  if (!scope) scope = await call("GET", "/v1/me");
  return scope;
}

export function knownScope() { return scope; }
export function resetScope() { scope = null; }

/* The hash of one of an agent's pages: ids are encoded, so any id is one path segment. */
export function agentHref(agent, rest) { return "#/agents/" + encodeURIComponent(agent) + (rest || ""); }
