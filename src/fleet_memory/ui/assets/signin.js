/* Sign in with an API key: checked with GET /v1/me before it is kept (for this tab only: api.js). */
import { call, setApiKey, forgetApiKey } from "./api.js";
import { h, field, errorBox } from "./dom.js";

export function signIn(done) {
  const input = h("input", { type: "password", name: "api-key", autocomplete: "off", required: true,
    spellcheck: "false" });
  const problem = h("div", {});
  const form = h("form", { class: "card", "aria-describedby": "signin-note" },
    h("p", { id: "signin-note" }, "The key is kept for this tab only and sent in a header, never in an address. " +
      "An admin key sees every agent; any other key only its own."),
    field("API key", input, "Made with: fleet-memory keys create NAME --agent AGENT"),
    problem,
    h("button", { type: "submit" }, "Sign in"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    setApiKey(input.value.trim());
    try {
      await call("GET", "/v1/me");
      done();
    } catch (error) {
      forgetApiKey();
      problem.replaceChildren(errorBox(error));
      input.focus();
    }
  });
  return form;
}
