/* The only door to the server: each call is a REST request under /v1 with the tab's API key in
   the X-API-Key header. The key lives in sessionStorage (this tab only), never in a URL. */
const KEY = "fleet-memory.api-key";

export function apiKey() { return sessionStorage.getItem(KEY); }
export function setApiKey(key) { sessionStorage.setItem(KEY, key); }
export function forgetApiKey() { sessionStorage.removeItem(KEY); }

export class ApiError extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

/* A readable message from an error body: FastAPI's 422 list names each field and its problem. */
function describe(status, body) {
  const detail = body && body.detail;
  if (Array.isArray(detail)) {
    return detail.map((d) => (d.loc || []).filter((p) => p !== "body").join(".") + ": " + d.msg).join("; ");
  }
  return typeof detail === "string" ? detail : "the server answered " + status;
}

export async function call(method, path, body) {
  const headers = { Accept: "application/json" };
  const key = apiKey();
  if (key) headers["X-API-Key"] = key;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, {
    method, headers, credentials: "omit", cache: "no-store",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const data = text ? JSON.parse(text) : null;
  if (!response.ok) throw new ApiError(response.status, describe(response.status, data));
  return data;
}

/* The path of an agent's route: every id is encoded, so no id can reach another route. */
export function agentPath(agent, rest) {
  return "/v1/agents/" + encodeURIComponent(agent) + rest;
}

export function query(params) {
  const q = new URLSearchParams();
  Object.entries(params).forEach(([k, v]) => {
    if (Array.isArray(v)) v.forEach((item) => q.append(k, item));  // a list: the parameter repeated
    else if (v !== undefined && v !== null && v !== "") q.set(k, v);
  });
  const s = q.toString();
  return s ? "?" + s : "";
}
