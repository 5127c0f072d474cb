/* Accessibility checks run in the page (the test's own equivalent of an axe-core run for the
   rules that matter here): every form control and every button / link has an accessible name,
   no positive tabindex, unique ids, a language, a title and one h1, and every visible piece of
   text stands at WCAG AA contrast (4.5:1; 3:1 for large text) on its effective background.
   Returns the list of problems found (empty when the page passes); marks each focusable element
   in DOM order with data-a11y-i for the focus-order check. */
(function () {
  var problems = [];
  function visible(el) {
    var r = el.getBoundingClientRect();  // checkVisibility: also false inside a closed <details>
    return r.width > 0 && r.height > 0 && el.checkVisibility({ visibilityProperty: true, contentVisibilityAuto: true });
  }
  function describe(el) { return el.outerHTML.slice(0, 100); }
  function nameOf(el) {
    var label = el.getAttribute("aria-label");
    if (label && label.trim()) return label.trim();
    var by = el.getAttribute("aria-labelledby");
    if (by) return by.split(/\s+/).map(function (id) {
      var t = document.getElementById(id); return t ? t.textContent : "";
    }).join(" ").trim();
    if (el.labels && el.labels.length) return Array.prototype.map.call(el.labels, function (l) { return l.textContent; }).join(" ").trim();
    if (el.matches("input, select, textarea")) return (el.getAttribute("title") || "").trim();
    return (el.textContent || el.getAttribute("title") || "").trim();
  }
  document.querySelectorAll("input:not([type=hidden]), select, textarea, button, a[href], summary").forEach(function (el) {
    if (!nameOf(el)) problems.push("no accessible name: " + describe(el));
  });
  document.querySelectorAll("[tabindex]").forEach(function (el) {
    if (el.tabIndex > 0) problems.push("positive tabindex: " + describe(el));
  });
  var ids = {};
  document.querySelectorAll("[id]").forEach(function (el) {
    if (ids[el.id]) problems.push("duplicate id " + el.id); ids[el.id] = true;
  });
  if (!document.documentElement.lang) problems.push("no lang on <html>");
  if (!document.title.trim()) problems.push("no title");
  if (document.querySelectorAll("h1").length !== 1) problems.push("not exactly one h1");

  function rgba(text) {
    var m = text.match(/rgba?\(([^)]+)\)/);
    if (!m) return null;
    var p = m[1].split(/[\s,/]+/).filter(Boolean).map(Number);
    return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
  }
  function luminance(c) {
    var f = [c.r, c.g, c.b].map(function (v) { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
    return 0.2126 * f[0] + 0.7152 * f[1] + 0.0722 * f[2];
  }
  function background(el) {
    for (var e = el; e; e = e.parentElement) {
      var c = rgba(getComputedStyle(e).backgroundColor);
      if (c && c.a > 0) return c;
    }
    return { r: 255, g: 255, b: 255, a: 1 };
  }
  var all = document.body.querySelectorAll("*");
  Array.prototype.forEach.call(all, function (el) {
    if (el.closest("svg, script, style, option, datalist") || !visible(el)) return;
    var own = Array.prototype.some.call(el.childNodes, function (n) { return n.nodeType === 3 && n.textContent.trim(); });
    if (!own) return;
    var s = getComputedStyle(el), fg = rgba(s.color), bg = background(el);
    var l1 = luminance(fg), l2 = luminance(bg);
    var ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
    var size = parseFloat(s.fontSize), bold = Number(s.fontWeight) >= 700;
    var needed = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;
    if (ratio < needed) problems.push("contrast " + ratio.toFixed(2) + " < " + needed + ": " + describe(el));
  });

  var focusable = "a[href], button:not([disabled]), input:not([disabled]):not([type=hidden]), select:not([disabled]), " +
    "textarea:not([disabled]), summary, [tabindex]:not([tabindex='-1'])";
  var order = [];
  document.querySelectorAll(focusable).forEach(function (el, i) {
    if (!visible(el) || el.closest("dialog:not([open])")) return;
    el.setAttribute("data-a11y-i", String(i));
    order.push(String(i));
  });
  return { problems: problems, order: order };
})();
