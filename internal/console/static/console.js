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

  // The run page: nodes in the order the run reached them.
  function liveRun(graph) {
    var nodes = [];  // {key, label, status, attempts}
    var byKey = {};
    var statusEl = document.getElementById("run-status");
    var startedFinal = /status-(success|failed|partial|cancelled)/.test(statusEl ? statusEl.className : "");
    var frames = document.getElementById("frames");
    var count = document.getElementById("frame-count");
    var timeline = document.querySelector("#timeline tbody");
    var seen = 0;

    function node(key, label) {
      var n = byKey[key];
      if (!n) {
        n = { key: key, label: label, status: "pending", attempts: 0 };
        byKey[key] = n;
        nodes.push(n);
      }
      return n;
    }

    function draw() {
      var w = 340, h = 44, gap = 22;
      var svg = document.createElementNS(SVG, "svg");
      var height = Math.max(1, nodes.length) * (h + gap);
      svg.setAttribute("viewBox", "0 0 " + w + " " + height);
      svg.setAttribute("width", "100%");
      svg.setAttribute("height", String(height));
      svg.setAttribute("class", "graph-svg");
      var title = document.createElementNS(SVG, "title");
      title.textContent = nodes.map(function (n) { return n.label + ": " + n.status; }).join(", ") || "no operation has run yet";
      svg.appendChild(title);
      nodes.forEach(function (n, i) {
        var y = i * (h + gap);
        if (i > 0) {
          var line = document.createElementNS(SVG, "line");
          line.setAttribute("x1", String(w / 2)); line.setAttribute("x2", String(w / 2));
          line.setAttribute("y1", String(y - gap)); line.setAttribute("y2", String(y));
          line.setAttribute("class", "edge");
          svg.appendChild(line);
        }
        var g = document.createElementNS(SVG, "g");
        g.setAttribute("class", "node st-" + n.status);
        g.setAttribute("data-op", n.key);
        g.setAttribute("data-status", n.status);
        var rect = document.createElementNS(SVG, "rect");
        rect.setAttribute("x", "1"); rect.setAttribute("y", String(y + 1));
        rect.setAttribute("width", String(w - 2)); rect.setAttribute("height", String(h - 2));
        rect.setAttribute("rx", "6");
        var text = document.createElementNS(SVG, "text");
        text.setAttribute("x", "12"); text.setAttribute("y", String(y + h / 2 + 5));
        text.textContent = n.label + " — " + n.status + (n.attempts > 1 ? " (attempt " + n.attempts + ")" : "");
        g.appendChild(rect); g.appendChild(text);
        svg.appendChild(g);
      });
      graph.replaceChildren(svg);
      graph.setAttribute("data-nodes", String(nodes.length));
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
      // A top-level operation's position is its index; a nested one's (a
      // Loop's iteration, a Conditional's branch) says where it ran.
      var key = ev.position && !/^\d+$/.test(ev.position) ? ev.operationId + " @ " + ev.position : ev.operationId;
      var n = node(key, key);
      var st = statusOf(ev.kind);
      if (st) { n.status = st; }
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
        var x = n > 1 ? (i * (w - 2 * pad)) / (60 - 1) + pad : pad;
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

  function liveCharts(box) {
    var url = box.getAttribute("data-stats");
    var prev = null;
    var data = { rps: [], eps: [], p50: [], p99: [], xps: [] };
    var names = { rps: "requests/s", eps: "errors/s", p50: "p50 ms", p99: "p99 ms", xps: "executions/s" };
    function push(k, v) { data[k].push(v); if (data[k].length > 60) { data[k].shift(); } }
    function poll() {
      if (document.hidden) { return; }
      fetch(url, { credentials: "same-origin" }).then(function (r) { return r.ok ? r.json() : null; }).then(function (st) {
        if (!st) { return; }
        st.at = Date.parse(st.time) || Date.now();
        if (prev) {
          var dt = Math.max((st.at - prev.at) / 1000, 0.001);
          push("rps", (st.requests - prev.requests) / dt);
          push("eps", (st.errors - prev.errors) / dt);
          push("xps", (sum(st.executions) - sum(prev.executions)) / dt);
          var delta = st.latency_buckets.map(function (b, i) {
            return { le: b.le, count: b.count - ((prev.latency_buckets[i] || {}).count || 0) };
          });
          push("p50", quantile(delta, 0.5));
          push("p99", quantile(delta, 0.99));
        }
        prev = st;
        box.querySelectorAll(".chart").forEach(function (el) {
          lineChart(el, el.getAttribute("data-series").split(",").map(function (k) { return { name: names[k], values: data[k] }; }));
        });
        box.setAttribute("data-samples", String(data.rps.length));
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
