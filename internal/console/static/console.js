// sluice console: the little script the pages use, written for this
// console (no library). It only makes pages live: the runs list refreshes,
// and a run page follows the run's frames over Server-Sent Events to draw
// its operations as a graph and a timeline. Every page works without it.
"use strict";

(function () {
  var SVG = "http://www.w3.org/2000/svg";
  var MAX_FRAMES = 2000; // frames kept in the page's list

  // The runs list: fetch the same page again and swap its rows.
  function liveList(table) {
    var every = parseInt(table.getAttribute("data-live"), 10) || 10000;
    setInterval(function () {
      if (document.hidden) { return; }
      fetch(location.href, { credentials: "same-origin", headers: { "Accept": "text/html" } })
        .then(function (r) { return r.ok ? r.text() : null; })
        .then(function (html) {
          if (!html) { return; }
          var doc = new DOMParser().parseFromString(html, "text/html");
          var fresh = doc.getElementById("runs-body");
          var old = document.getElementById("runs-body");
          if (fresh && old) { old.replaceWith(document.importNode(fresh, true)); }
        })
        .catch(function () {});
    }, every);
  }

  function statusOf(kind) {
    switch (kind) {
      case "started": case "retried": return "running";
      case "finished": return "succeeded";
      case "failed": return "failed";
      case "waiting": case "parked": return "waiting";
    }
    return "";
  }

  // The run page. With the run's plan (an A2E run's operations, from the
  // page's data-plan) every node is drawn from the start, pending until the
  // run reaches it: a Conditional's branches as two arms, a Loop's body in
  // a frame under its node. Without one, nodes appear as the run reaches
  // them, in that order.
  function liveRun(graph) {
    var roots = [];  // {key, label, type, status, attempts, runs, body, ifTrue, ifFalse}
    var byKey = {};
    var planned = false;
    var ended = false;
    var statusEl = document.getElementById("run-status");
    var startedFinal = /status-(success|failed|partial|cancelled)/.test(statusEl ? statusEl.className : "");
    var frames = document.getElementById("frames");
    var count = document.getElementById("frame-count");
    var timeline = document.querySelector("#timeline tbody");
    var seen = 0;

    function make(key, label, type) {
      var n = { key: key, label: label, type: type || "", status: "pending", attempts: 0, runs: 0, at: {}, body: [], ifTrue: [], ifFalse: [] };
      if (!byKey[key]) { byKey[key] = n; }
      return n;
    }
    function fromPlan(steps, depth) {
      if (!Array.isArray(steps) || depth > 24) { return []; }
      return steps.map(function (st) {
        var n = make(String(st.id), String(st.id), st.missing ? "not defined" : String(st.type || ""));
        n.body = fromPlan(st.body, depth + 1);
        n.ifTrue = fromPlan(st.if_true, depth + 1);
        n.ifFalse = fromPlan(st.if_false, depth + 1);
        return n;
      });
    }
    try {
      var plan = JSON.parse(graph.getAttribute("data-plan") || "null");
      if (Array.isArray(plan) && plan.length) { roots = fromPlan(plan, 0); planned = true; }
    } catch (err) { roots = []; }

    // node is the node an event or result names: the planned one, else a
    // new one at the end.
    function node(key, label) {
      var n = byKey[key];
      if (!n) { n = make(key, label); roots.push(n); }
      return n;
    }

    var W = 600, H = 40, GAP = 18, PAD = 10, ARM = 22;
    function el(name, attrs) {
      var e = document.createElementNS(SVG, name);
      Object.keys(attrs).forEach(function (k) { e.setAttribute(k, String(attrs[k])); });
      return e;
    }
    // place lays a list of nodes out top-down from y in [x, x+w] and
    // returns the y below it.
    function place(list, x, y, w, svg) {
      list.forEach(function (n, i) {
        if (i > 0) { svg.appendChild(el("line", { x1: x + w / 2, x2: x + w / 2, y1: y - GAP, y2: y, "class": "edge" })); }
        y = placeOne(n, x, y, w, svg) + GAP;
      });
      return list.length ? y - GAP : y;
    }
    function placeOne(n, x, y, w, svg) {
      var frame = null;
      if (n.body.length) { frame = el("rect", { x: x, y: y, width: w, rx: 8, "class": "frame" }); svg.appendChild(frame); }
      var inset = frame ? PAD : 0;
      var g = el("g", { "class": "node st-" + n.status, "data-op": n.key, "data-status": n.status });
      g.appendChild(el("rect", { x: x + inset + 1, y: y + inset + 1, width: Math.max(w - 2 * inset - 2, 10), height: H - 2, rx: 6 }));
      var text = el("text", { x: x + inset + 10, y: y + inset + H / 2 + 5 });
      var shown = n.status === "pending" && ended ? "not run" : n.status;
      text.textContent = n.label + (n.type ? " (" + n.type + ")" : "") + " — " + shown +
        (n.attempts > 1 ? ", attempt " + n.attempts : "") + (n.runs > 1 ? ", ×" + n.runs : "");
      g.appendChild(text);
      svg.appendChild(g);
      var bottom = y + inset + H;
      if (n.body.length) {
        bottom = place(n.body, x + 2 * PAD, bottom + GAP, w - 4 * PAD, svg) + PAD;
        frame.setAttribute("height", String(bottom - y));
      }
      if (n.ifTrue.length || n.ifFalse.length) {
        var half = (w - PAD) / 2, top = bottom + ARM, from = bottom;
        [[n.ifTrue, x, "if true"], [n.ifFalse, x + half + PAD, "if false"]].forEach(function (arm) {
          var label = el("text", { x: arm[1] + 4, y: top - 6, "class": "arm" });
          label.textContent = arm[2] + (arm[0].length ? "" : ": nothing");
          svg.appendChild(label);
          svg.appendChild(el("line", { x1: x + w / 2, y1: from, x2: arm[1] + half / 2, y2: top, "class": "edge" }));
          var end = place(arm[0], arm[1], top, half, svg);
          bottom = Math.max(bottom, end);
        });
      }
      return bottom;
    }

    function flat(list, out) {
      list.forEach(function (n) { out.push(n); flat(n.body, out); flat(n.ifTrue, out); flat(n.ifFalse, out); });
      return out;
    }

    function draw() {
      var svg = el("svg", { width: "100%", "class": "graph-svg" });
      var all = flat(roots, []);
      var title = el("title", {});
      title.textContent = all.map(function (n) { return n.label + ": " + n.status; }).join(", ") || "no operation has run yet";
      svg.appendChild(title);
      var height = Math.max(place(roots, 0, 0, W, svg), H);
      svg.setAttribute("viewBox", "0 0 " + W + " " + height);
      svg.setAttribute("height", String(height));
      graph.replaceChildren(svg);
      graph.setAttribute("data-nodes", String(all.length));
    }

    function row(ev) {
      if (!timeline) { return; }
      var tr = document.createElement("tr");
      [ev.operationId || ev.position || "(run)", ev.kind, ev.attempt || "", ev.durationMs ? ev.durationMs + " ms" : "",
        ev.time || ""].forEach(function (v) {
        var td = document.createElement("td");
        td.textContent = String(v);
        tr.appendChild(td);
      });
      timeline.appendChild(tr);
    }

    function onEvent(ev) {
      row(ev);
      if (!ev.operationId) { return; }
      // A planned operation is its node wherever it runs (each iteration
      // of a Loop's body moves the same node on). Without a plan, a nested
      // one is named by its position (a Loop's iteration, a branch).
      var key = !planned && ev.position && !/^\d+$/.test(ev.position) ? ev.operationId + " @ " + ev.position : ev.operationId;
      var n = node(key, key);
      var st = statusOf(ev.kind);
      if (st) { n.status = st; }
      // A step started again at the same position is a resumed or retried
      // one; at another, another iteration.
      if (ev.kind === "started" && ev.position && !n.at[ev.position]) { n.at[ev.position] = true; n.runs++; }
      if (ev.attempt) { n.attempts = ev.attempt; }
      draw();
    }

    // A run's final frame: its status, and the operations it reports
    // (a synchronous run stores no step frames, only this one).
    function onFinal(f) {
      var res = f.body && f.body.result;
      if (!res) { return; }
      if (res.results && typeof res.results === "object") {
        Object.keys(res.results).forEach(function (k) {
          var n = byKey[k] || node(k, k);
          if (n.status === "pending" || n.status === "running") { n.status = "succeeded"; }
        });
      }
      (res.errors || []).forEach(function (e) {
        if (e && e.operationId) { node(e.operationId, e.operationId).status = "failed"; }
      });
      ended = true;
      if (res.status && statusEl) {
        statusEl.textContent = res.status;
        statusEl.className = "status status-" + res.status;
      }
      draw();
    }

    function addFrame(f) {
      seen++;
      if (count) { count.textContent = String(seen); }
      if (frames && frames.children.length < MAX_FRAMES) {
        var li = document.createElement("li");
        var pre = document.createElement("pre");
        pre.textContent = JSON.stringify(f, null, 2);
        li.appendChild(pre);
        frames.appendChild(li);
      }
    }

    // settle fetches the run's page again and swaps the parts a finished
    // run changes. The final frame can come a moment before the stored
    // record reads final, so a page that is not yet final is asked for
    // again, a few times.
    var SETTLED_PARTS = ["facts", "run-actions", "run-errors", "detail"];
    function settle(tries) {
      fetch(location.pathname, { credentials: "same-origin", headers: { "Accept": "text/html" } })
        .then(function (r) { return r.ok ? r.text() : null; })
        .then(function (html) {
          if (!html) { return; }
          var doc = new DOMParser().parseFromString(html, "text/html");
          var facts = doc.getElementById("facts");
          var final = facts && facts.getAttribute("data-final") === "true";
          if (!final && tries < 10) { setTimeout(function () { settle(tries + 1); }, 300 * (tries + 1)); return; }
          SETTLED_PARTS.forEach(function (id) {
            var fresh = doc.getElementById(id);
            var old = document.getElementById(id);
            if (fresh && old) { old.replaceWith(document.importNode(fresh, true)); }
          });
          statusEl = document.getElementById("run-status");
          graph.setAttribute("data-settled", String(final));
        })
        .catch(function () {});
    }

    draw();
    var es = new EventSource(graph.getAttribute("data-events"));
    es.onmessage = function (e) {
      var f;
      try { f = JSON.parse(e.data); } catch (err) { return; }
      addFrame(f);
      var delta = f.body && f.body.delta;
      if (f.response_kind === "e2a.chunk" && delta && delta.type === "execution.event") {
        onEvent(delta);
      } else if (f.is_final) {
        onFinal(f);
      }
    };
    es.addEventListener("end", function () {
      es.close();
      ended = true;
      draw();
      graph.setAttribute("data-ended", "true");
      // The run ended while the page was open: bring the facts, the
      // actions, the errors and the view to what the server renders for a
      // finished run, the live graph kept.
      if (!startedFinal) { settle(0); } else { graph.setAttribute("data-settled", "true"); }
    });
    es.addEventListener("failure", function (e) {
      es.close();
      var p = document.createElement("p");
      p.className = "error";
      p.setAttribute("role", "alert");
      try { p.textContent = "The run's frames could not be followed: " + JSON.parse(e.data).message; } catch (err) { p.textContent = "The run's frames could not be followed."; }
      graph.appendChild(p);
    });
  }

  // The system page's charts: poll the server's counters and draw the
  // rates and the last interval's quantiles as lines.
  function quantile(buckets, q) {
    var total = buckets.length ? buckets[buckets.length - 1].count : 0;
    if (total <= 0) { return 0; }
    var want = Math.ceil(q * total);
    for (var i = 0; i < buckets.length; i++) {
      if (buckets[i].count >= want) { return buckets[i].le < 0 ? NaN : buckets[i].le * 1000; }
    }
    return NaN;
  }

  function sum(m) {
    var t = 0;
    Object.keys(m || {}).forEach(function (k) { t += m[k]; });
    return t;
  }

  function lineChart(el, series) {
    var w = 400, h = 120, pad = 4;
    var top = 0;
    series.forEach(function (s) { s.values.forEach(function (v) { if (isFinite(v)) { top = Math.max(top, v); } }); });
    var svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("viewBox", "0 0 " + w + " " + (h + 20));
    svg.setAttribute("width", "100%");
    svg.setAttribute("class", "chart-svg");
    svg.setAttribute("role", "img");
    var label = series.map(function (s) {
      var last = s.values.length ? s.values[s.values.length - 1] : 0;
      return s.name + " " + (isFinite(last) ? last.toFixed(2) : "n/a");
    }).join(", ");
    svg.setAttribute("aria-label", label);
    var axis = document.createElementNS(SVG, "line");
    axis.setAttribute("x1", "0"); axis.setAttribute("x2", String(w));
    axis.setAttribute("y1", String(h)); axis.setAttribute("y2", String(h));
    axis.setAttribute("class", "axis");
    svg.appendChild(axis);
    series.forEach(function (s, si) {
      var n = s.values.length;
      var pts = s.values.map(function (v, i) {
        var x = n > 1 ? (i * (w - 2 * pad)) / (Math.max(n, 60) - 1) + pad : pad;
        var y = top > 0 && isFinite(v) ? h - (v / top) * (h - pad) : h;
        return x.toFixed(1) + "," + y.toFixed(1);
      });
      var pl = document.createElementNS(SVG, "polyline");
      pl.setAttribute("points", pts.join(" "));
      pl.setAttribute("class", "line line-" + si);
      svg.appendChild(pl);
    });
    var t = document.createElementNS(SVG, "text");
    t.setAttribute("x", "0"); t.setAttribute("y", String(h + 16));
    t.textContent = label + " (max " + top.toFixed(2) + ")";
    svg.appendChild(t);
    el.replaceChildren(svg);
  }

  // rates are the chart points between two samples of the counters.
  function rates(prev, st) {
    var dt = Math.max((Date.parse(st.time) - Date.parse(prev.time)) / 1000, 0.001);
    var delta = (st.latency_buckets || []).map(function (b, i) {
      return { le: b.le, count: b.count - (((prev.latency_buckets || [])[i] || {}).count || 0) };
    });
    var ex = function (x) { return typeof x === "number" ? x : sum(x); };
    return { rps: (st.requests - prev.requests) / dt, eps: (st.errors - prev.errors) / dt,
      xps: (ex(st.executions) - ex(prev.executions)) / dt, p50: quantile(delta, 0.5), p99: quantile(delta, 0.99) };
  }

  // The charts: the server's history (a sample every 10 s over the last
  // hour, from admin.stats.get) then what the page sees as it polls.
  function liveCharts(box) {
    var url = box.getAttribute("data-stats");
    var prev = null;
    var live = [];     // points from this page's polls, the latest 60
    var names = { rps: "requests/s", eps: "errors/s", p50: "p50 ms", p99: "p99 ms", xps: "executions/s" };
    function poll() {
      if (document.hidden) { return; }
      fetch(url, { credentials: "same-origin" }).then(function (r) { return r.ok ? r.json() : null; }).then(function (st) {
        if (!st) { return; }
        if (prev) { live.push(rates(prev, st)); if (live.length > 60) { live.shift(); } }
        prev = st;
        var hist = [];
        var h = Array.isArray(st.history) ? st.history : [];
        for (var i = 1; i < h.length; i++) { hist.push(rates(h[i - 1], h[i])); }
        var points = hist.concat(live);
        box.querySelectorAll(".chart").forEach(function (el) {
          lineChart(el, el.getAttribute("data-series").split(",").map(function (k) {
            return { name: names[k], values: points.map(function (p) { return p[k]; }) };
          }));
        });
        box.setAttribute("data-history", String(hist.length));
        box.setAttribute("data-samples", String(live.length));
      }).catch(function () {});
    }
    poll();
    setInterval(poll, 2000);
  }

  document.addEventListener("DOMContentLoaded", function () {
    var charts = document.getElementById("charts");
    if (charts && window.fetch) { liveCharts(charts); }
    var table = document.getElementById("runs");
    if (table && table.hasAttribute("data-live")) { liveList(table); }
    var graph = document.getElementById("graph");
    if (graph && graph.hasAttribute("data-events") && window.EventSource) { liveRun(graph); }
  });
})();
