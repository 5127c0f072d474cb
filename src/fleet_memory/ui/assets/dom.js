/* Building the page: elements made with text only (never parsed as HTML), so stored text can never
   become markup; small shared pieces (labelled fields, tables, pagers, confirmations). */

export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  Object.entries(props || {}).forEach(([k, v]) => {
    if (v === undefined || v === null || v === false) return;
    if (k === "on") Object.entries(v).forEach(([ev, fn]) => el.addEventListener(ev, fn));
    else if (k === "text") el.textContent = v;
    else if (k in el && typeof v !== "string") el[k] = v;
    else el.setAttribute(k, v === true ? "" : v);
  });
  children.flat(Infinity).forEach((c) => {
    if (c !== null && c !== undefined && c !== false) el.append(c instanceof Node ? c : String(c));
  });
  return el;
}

let uniq = 0;
/* An input with its visible label, joined by for/id. */
export function field(label, input, hint) {
  input.id = input.id || "f" + (++uniq);
  const parts = [h("label", { for: input.id }, label), input];
  if (hint) {
    const id = input.id + "-hint";
    input.setAttribute("aria-describedby", id);
    parts.push(h("small", { id, class: "hint" }, hint));
  }
  return h("div", { class: "field" }, parts);
}

export function table(caption, headers, rows) {
  return h("table", {},
    h("caption", {}, caption),
    h("thead", {}, h("tr", {}, headers.map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, rows.map((cells) => h("tr", {}, cells.map((c) => h("td", {}, c))))));
}

export function link(href, text, props) { return h("a", { href, ...(props || {}) }, text); }

export function date(iso) {
  if (!iso) return "—";
  return iso.slice(0, 16).replace("T", " ");
}

export function num(x, digits) { return Number(x).toFixed(digits === undefined ? 2 : digits); }

/* Previous / next over server-side pages; `go(offset)` opens another page. */
export function pager(label, offset, size, nextOffset, go) {
  const prev = h("button", { type: "button", disabled: offset <= 0, on: { click: () => go(Math.max(0, offset - size)) } },
    "Previous page");
  const next = h("button", { type: "button", disabled: nextOffset === null, on: { click: () => go(nextOffset) } },
    "Next page");
  return h("nav", { class: "pager", "aria-label": label }, prev,
    h("span", {}, "from " + (offset + 1)), next);
}

/* A modal confirmation (<dialog>): resolves true when the person confirms. */
export function confirmAction(question, verb) {
  return new Promise((resolve) => {
    const dialog = h("dialog", { "aria-labelledby": "confirm-title", class: "confirm" });
    const done = (answer) => { dialog.close(); dialog.remove(); resolve(answer); };
    dialog.append(
      h("h2", { id: "confirm-title" }, question),
      h("div", { class: "actions" },
        h("button", { type: "button", class: "danger", on: { click: () => done(true) } }, verb),
        h("button", { type: "button", on: { click: () => done(false) } }, "Cancel")));
    dialog.addEventListener("cancel", () => done(false));
    document.body.append(dialog);
    dialog.showModal();
  });
}

export function errorBox(error) {
  return h("p", { class: "error", role: "alert" }, error.message || String(error));
}

let said = null;
/* A short notice in the status region (read out by screen readers), cleared after a while. */
export function say(message) {
  const status = document.getElementById("status");
  status.textContent = message;
  clearTimeout(said);
  said = setTimeout(() => { status.textContent = ""; }, 8000);
}
