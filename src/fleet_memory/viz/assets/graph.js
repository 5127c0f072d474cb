/* fleet-memory graph renderer: a small, self-contained force-directed layout drawn in SVG.
   No library, nothing fetched. Reads the JSON in <script id="graph-data">. */
(function () {
  "use strict";
  var SVGNS = "http://www.w3.org/2000/svg";
  var data = JSON.parse(document.getElementById("graph-data").textContent);
  var W = 1000, H = 700;
  var EDGE_STYLE = {
    temporal: { color: "#00bcd4", width: 1.5, dash: "6,4" },
    semantic: { color: "#e91e63", width: 2, dash: null },
    entity: { color: "#ffc107", width: 4, dash: null }
  };
  var TYPE_COLOR = { episodic: "#5c7cfa", semantic: "#40c057", procedural: "#fd7e14" };

  var nodes = data.nodes.map(function (n, i) {
    var a = (2 * Math.PI * i) / Math.max(1, data.nodes.length);
    var r = 50 + 8 * Math.sqrt(i + 1);
    return { d: n, x: W / 2 + r * Math.cos(a), y: H / 2 + r * Math.sin(a), vx: 0, vy: 0 };
  });
  var byId = {};
  nodes.forEach(function (n) { byId[n.d.id] = n; });
  var DRAW_ORDER = { entity: 0, semantic: 1, temporal: 2 };  // thick gold underneath, dashed cyan on top
  var edges = data.edges.filter(function (e) { return byId[e.source] && byId[e.target]; }).map(function (e) {
    return { d: e, s: byId[e.source], t: byId[e.target] };
  }).sort(function (a, b) { return (DRAW_ORDER[a.d.kind] || 0) - (DRAW_ORDER[b.d.kind] || 0); });

  // Force-directed layout: pairwise repulsion, springs along edges, a pull to the centre.
  function layout(iterations) {
    var k = Math.sqrt((W * H) / Math.max(1, nodes.length)) * 0.6;
    for (var it = 0; it < iterations; it++) {
      var temp = 1 - it / iterations;
      for (var i = 0; i < nodes.length; i++) {
        var a = nodes[i];
        for (var j = i + 1; j < nodes.length; j++) {
          var b = nodes[j], dx = a.x - b.x, dy = a.y - b.y;
          var d2 = dx * dx + dy * dy + 0.01, f = (k * k) / d2;
          a.vx += dx * f * 0.05; a.vy += dy * f * 0.05; b.vx -= dx * f * 0.05; b.vy -= dy * f * 0.05;
        }
      }
      edges.forEach(function (e) {
        var dx = e.t.x - e.s.x, dy = e.t.y - e.s.y, d = Math.sqrt(dx * dx + dy * dy) + 0.01;
        var f = ((d - k) / d) * 0.05 * (0.5 + e.d.weight);
        e.s.vx += dx * f; e.s.vy += dy * f; e.t.vx -= dx * f; e.t.vy -= dy * f;
      });
      nodes.forEach(function (n) {
        n.vx += (W / 2 - n.x) * 0.01; n.vy += (H / 2 - n.y) * 0.01;
        var v = Math.sqrt(n.vx * n.vx + n.vy * n.vy), cap = 30 * temp + 1;
        if (v > cap) { n.vx *= cap / v; n.vy *= cap / v; }
        n.x += n.vx; n.y += n.vy; n.vx *= 0.5; n.vy *= 0.5;
      });
    }
  }
  layout(nodes.length > 400 ? 150 : 300);

  var svg = document.getElementById("graph");
  var view = { x: 0, y: 0, w: W, h: H };
  function fit() {
    if (!nodes.length) return;
    var minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
    nodes.forEach(function (n) {
      minX = Math.min(minX, n.x); minY = Math.min(minY, n.y); maxX = Math.max(maxX, n.x); maxY = Math.max(maxY, n.y);
    });
    var right = nodes.length <= 80 ? 300 : 40;  // room for the labels drawn right of each node
    view = { x: minX - 40, y: minY - 50, w: Math.max(600, maxX - minX + 40 + right), h: Math.max(420, maxY - minY + 90) };
    svg.setAttribute("viewBox", [view.x, view.y, view.w, view.h].join(" "));
  }
  function el(name, attrs, parent) {
    var e = document.createElementNS(SVGNS, name);
    Object.keys(attrs).forEach(function (k) { if (attrs[k] !== null) e.setAttribute(k, attrs[k]); });
    if (parent) parent.appendChild(e);
    return e;
  }

  var gEdges = el("g", { "class": "edges" }, svg), gNodes = el("g", { "class": "nodes" }, svg);
  var gLabels = el("g", { "class": "labels" }, svg);
  edges.forEach(function (e) {
    var st = EDGE_STYLE[e.d.kind] || EDGE_STYLE.semantic;
    e.el = el("line", { "class": "edge edge-" + e.d.kind, stroke: st.color, "stroke-width": st.width,
      "stroke-dasharray": st.dash, "stroke-opacity": 0.35 + 0.55 * e.d.weight }, gEdges);
  });
  var tip = document.getElementById("tooltip");
  nodes.forEach(function (n) {
    var r = 6 + 10 * (n.d.importance || 0);
    n.el = el("circle", { "class": "node node-" + n.d.type, r: r, fill: TYPE_COLOR[n.d.type] || "#888",
      stroke: "#222", "stroke-width": 1, "data-id": n.d.id }, gNodes);
    n.el.addEventListener("mousemove", function (ev) {
      tip.style.display = "block";
      tip.style.left = ev.clientX + 14 + "px"; tip.style.top = ev.clientY + 14 + "px";
      tip.textContent = "";
      var t = document.createElement("div"); t.className = "tip-text"; t.textContent = n.d.text; tip.appendChild(t);
      var m = document.createElement("div"); m.className = "tip-meta";
      m.textContent = n.d.type + " · " + n.d.date.slice(0, 16).replace("T", " ") + " · importance " +
        Number(n.d.importance).toFixed(2) + (n.d.entities.length ? " · " + n.d.entities.join(", ") : "");
      tip.appendChild(m);
    });
    n.el.addEventListener("mouseleave", function () { tip.style.display = "none"; });
    n.el.addEventListener("mousedown", function (ev) { ev.stopPropagation(); dragging = n; });
    if (nodes.length <= 80) {
      n.label = el("text", { "class": "label" }, gLabels);
      n.label.textContent = n.d.text.length > 42 ? n.d.text.slice(0, 40) + "\u2026" : n.d.text;
    }
  });
  function draw() {
    edges.forEach(function (e) {
      e.el.setAttribute("x1", e.s.x); e.el.setAttribute("y1", e.s.y);
      e.el.setAttribute("x2", e.t.x); e.el.setAttribute("y2", e.t.y);
    });
    nodes.forEach(function (n) {
      n.el.setAttribute("cx", n.x); n.el.setAttribute("cy", n.y);
      if (n.label) { n.label.setAttribute("x", n.x + 10); n.label.setAttribute("y", n.y + 4); }
    });
  }

  // Interaction: drag a node, drag the background to pan, wheel to zoom.
  var dragging = null, panning = null;
  function toGraph(ev) {
    var rect = svg.getBoundingClientRect();
    return { x: view.x + ((ev.clientX - rect.left) / rect.width) * view.w,
             y: view.y + ((ev.clientY - rect.top) / rect.height) * view.h };
  }
  svg.addEventListener("mousedown", function (ev) { panning = { p: toGraph(ev) }; });
  window.addEventListener("mouseup", function () { dragging = null; panning = null; });
  window.addEventListener("mousemove", function (ev) {
    if (dragging) { var p = toGraph(ev); dragging.x = p.x; dragging.y = p.y; draw(); }
    else if (panning) {
      var q = toGraph(ev);
      view.x -= q.x - panning.p.x; view.y -= q.y - panning.p.y;
      svg.setAttribute("viewBox", [view.x, view.y, view.w, view.h].join(" "));
    }
  });
  svg.addEventListener("wheel", function (ev) {
    ev.preventDefault();
    var p = toGraph(ev), s = ev.deltaY > 0 ? 1.1 : 1 / 1.1;
    view = { x: p.x - (p.x - view.x) * s, y: p.y - (p.y - view.y) * s, w: view.w * s, h: view.h * s };
    svg.setAttribute("viewBox", [view.x, view.y, view.w, view.h].join(" "));
  }, { passive: false });

  // The traced search: result nodes get a ring and their rank; edges along their paths light up.
  var traced = {}, tracedEdges = [];
  (data.trace || []).forEach(function (step) {
    traced[step.id] = step.rank;
    var path = (step.path || []).concat([step.id]);
    for (var i = 0; i + 1 < path.length; i++) {
      edges.forEach(function (e) {
        if ((e.d.source === path[i] && e.d.target === path[i + 1]) || (e.d.target === path[i] && e.d.source === path[i + 1])) {
          tracedEdges.push(e);
        }
      });
    }
  });
  var labels = el("g", { "class": "ranks" }, svg);
  function highlight(on) {
    document.body.classList.toggle("trace-on", on);
    nodes.forEach(function (n) {
      var hit = on && traced[n.d.id] !== undefined;
      n.el.setAttribute("stroke", hit ? "#6741d9" : "#222");
      n.el.setAttribute("stroke-width", hit ? 4 : 1);
      n.el.classList.toggle("traced", hit);
    });
    tracedEdges.forEach(function (e) { e.el.classList.toggle("traced", on); });
    while (labels.firstChild) labels.removeChild(labels.firstChild);
    if (on) nodes.forEach(function (n) {
      if (traced[n.d.id] !== undefined) {
        var t = el("text", { x: n.x - 6, y: n.y - 14, "class": "rank" }, labels);
        t.textContent = "#" + traced[n.d.id];
      }
    });
  }
  var toggle = document.getElementById("trace-toggle");
  if (data.trace && data.trace.length) {
    toggle.disabled = false; toggle.checked = true;
    toggle.addEventListener("change", function () { highlight(toggle.checked); });
  }
  fit(); draw(); highlight(toggle.checked);
  document.getElementById("summary").textContent = nodes.length + " memories, " + edges.length + " links" +
    (data.truncated ? " (neighbourhood limited to " + nodes.length + " nodes)" : "") +
    (data.query ? " · search: \u201c" + data.query + "\u201d" : "");
  document.body.setAttribute("data-rendered", "true");
  document.body.setAttribute("data-node-count", String(gNodes.childNodes.length));
  document.body.setAttribute("data-edge-count", String(gEdges.childNodes.length));
})();
