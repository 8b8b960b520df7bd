/* gpuprof HTML report: tables, timeline and charts. Embedded in the page; fetches nothing. */
(function () {
	"use strict";

	var data = JSON.parse(document.getElementById("gp-data").textContent);
	var SVGNS = "http://www.w3.org/2000/svg";
	var CAUSE_COLORS = ["#8e6fbf", "#d1495b", "#edae49", "#66a182", "#00798c", "#30638e",
		"#a23b72", "#f18f01", "#6c757d", "#c73e1d", "#9aa5b1"];

	/* ---- formatting */

	function fmtNs(ns) {
		var a = Math.abs(ns);
		if (a >= 1e9) return (ns / 1e9).toFixed(3) + " s";
		if (a >= 1e6) return (ns / 1e6).toFixed(3) + " ms";
		if (a >= 1e3) return (ns / 1e3).toFixed(3) + " \u00b5s";
		return ns + " ns";
	}
	function fmtShort(ns) {
		var a = Math.abs(ns);
		if (a >= 1e9) return +(ns / 1e9).toPrecision(3) + " s";
		if (a >= 1e6) return +(ns / 1e6).toPrecision(3) + " ms";
		if (a >= 1e3) return +(ns / 1e3).toPrecision(3) + " \u00b5s";
		return ns + " ns";
	}
	function hash(s) {
		var h = 2166136261;
		for (var i = 0; i < s.length; i++) {
			h ^= s.charCodeAt(i);
			h = Math.imul(h, 16777619);
		}
		return h >>> 0;
	}
	function svg(name, attrs, parent) {
		var e = document.createElementNS(SVGNS, name);
		for (var k in attrs) e.setAttribute(k, attrs[k]);
		if (parent) parent.appendChild(e);
		return e;
	}
	function svgTitle(e, text) {
		svg("title", {}, e).textContent = text;
	}

	/* ---- tables: sort by a header click, filter by the box above */

	function cellValue(td, numeric) {
		/* A formatted number ("14.0 ms", "1,024") keeps its exact value in data-v. */
		var s = td.dataset.v !== undefined ? td.dataset.v : td.textContent;
		if (!numeric) return s.toLowerCase();
		if (s === "") return -Infinity;
		var v = parseFloat(s.replace(/[,%\s]/g, ""));
		return isNaN(v) ? -Infinity : v;
	}
	function sortTable(table, col, dir) {
		var th = table.tHead.rows[0].cells;
		var numeric = th[col].classList.contains("num");
		var body = table.tBodies[0];
		var rows = Array.prototype.slice.call(body.rows);
		var keyed = rows.map(function (r, i) { return [cellValue(r.cells[col], numeric), i, r]; });
		keyed.sort(function (a, b) {
			if (a[0] < b[0]) return -dir;
			if (a[0] > b[0]) return dir;
			return a[1] - b[1];
		});
		var frag = document.createDocumentFragment();
		keyed.forEach(function (k) { frag.appendChild(k[2]); });
		body.appendChild(frag);
		for (var i = 0; i < th.length; i++) th[i].removeAttribute("aria-sort");
		th[col].setAttribute("aria-sort", dir > 0 ? "ascending" : "descending");
	}
	function filterTable(table, query, counter) {
		var q = query.trim().toLowerCase(), shown = 0, rows = table.tBodies[0].rows;
		for (var i = 0; i < rows.length; i++) {
			var hit = !q || rows[i].textContent.toLowerCase().indexOf(q) >= 0;
			rows[i].hidden = !hit;
			if (hit) shown++;
		}
		var noun = rows.length === 1 ? " row" : " rows";
		counter.textContent = q ? shown + " of " + rows.length + noun : rows.length + noun;
	}
	function setupTables() {
		var tables = document.querySelectorAll("table.gp-table");
		Array.prototype.forEach.call(tables, function (table) {
			var th = table.tHead.rows[0].cells;
			Array.prototype.forEach.call(th, function (h, col) {
				h.tabIndex = 0;
				var go = function () {
					var cur = h.getAttribute("aria-sort");
					/* numbers first largest-first, words first A-Z */
					var first = h.classList.contains("num") ? -1 : 1;
					sortTable(table, col, cur === (first > 0 ? "ascending" : "descending") ? -first : first);
				};
				h.addEventListener("click", go);
				h.addEventListener("keydown", function (e) { if (e.key === "Enter") go(); });
			});
			var sec = table.closest("section");
			var input = sec.querySelector("input.gp-filter");
			var counter = sec.querySelector(".gp-count");
			input.addEventListener("input", function () { filterTable(table, input.value, counter); });
			filterTable(table, "", counter);
		});
	}

	/* ---- charts */

	function chartSteps() {
		var box = document.getElementById("gp-chart-steps");
		var steps = data.timeline.steps;
		if (!steps.length) { box.textContent = "no steps"; return; }
		var W = 640, H = 200, L = 64, B = 22, T = 8;
		var s = svg("svg", { width: W, height: H, viewBox: "0 0 " + W + " " + H, role: "img" }, box);
		var max = 1;
		steps.forEach(function (st) { max = Math.max(max, st.wall, st.busy); });
		var n = steps.length, bw = (W - L - 4) / n;
		var y = function (v) { return T + (H - T - B) * (1 - v / max); };
		for (var k = 0; k <= 4; k++) {
			var v = max * k / 4;
			svg("line", { x1: L, x2: W, y1: y(v), y2: y(v), stroke: "#eef1f5" }, s);
			svg("text", { x: L - 4, y: y(v) + 4, "text-anchor": "end" }, s).textContent = fmtShort(v);
		}
		var bars = svg("g", { class: "gp-step-bars" }, s);
		steps.forEach(function (st, i) {
			var x = L + i * bw, w = Math.max(bw - (bw > 3 ? 1 : 0), 0.5);
			var r = svg("rect", { x: x, y: y(st.wall), width: w, height: H - B - y(st.wall),
				fill: st.view >= 0 ? "#9fb8e8" : "#c9d3e4", "data-step": i }, bars);
			svgTitle(r, st.label + "\nwall " + fmtNs(st.wall) + "\nGPU busy " + fmtNs(st.busy) +
				(st.view >= 0 ? "\nclick: show on the timeline" : ""));
			svg("rect", { x: x + w / 4, y: y(st.busy), width: w / 2,
				height: H - B - y(st.busy), fill: "#2f6fde", "pointer-events": "none" }, bars);
			if (st.view >= 0) {
				r.style.cursor = "pointer";
				r.addEventListener("click", function () { timeline.show(st.view); });
			}
		});
		/* The step numbers the tables show, not positions. */
		svg("text", { x: L, y: H - 6 }, s).textContent = "step " + steps[0].number;
		svg("text", { x: W, y: H - 6, "text-anchor": "end" }, s).textContent =
			"step " + steps[n - 1].number;
		legend(box, [["#9fb8e8", "wall"], ["#2f6fde", "GPU busy (summed over devices)"]]);
	}

	function legend(box, items) {
		var d = document.createElement("div");
		d.className = "gp-legend";
		items.forEach(function (it) {
			var span = document.createElement("span");
			var i = document.createElement("i");
			i.style.background = it[0];
			span.appendChild(i);
			span.appendChild(document.createTextNode(it[1]));
			d.appendChild(span);
		});
		box.appendChild(d);
	}

	function chartIdle() {
		var box = document.getElementById("gp-chart-idle");
		var idle = data.idle, W = 640, H = 34;
		if (!idle.idle) { box.textContent = "no idle time"; return; }
		var s = svg("svg", { width: W, height: H, viewBox: "0 0 " + W + " " + H, role: "img" }, box);
		var x = 0, items = [];
		idle.causes.forEach(function (c) {
			if (!c.ns) return;
			var w = W * c.ns / idle.idle;
			var r = svg("rect", { x: x, y: 4, width: Math.max(w, 0.5), height: H - 8,
				fill: CAUSE_COLORS[c.cause % CAUSE_COLORS.length], "data-cause": c.key }, s);
			svgTitle(r, c.label + ": " + fmtNs(c.ns) + " (" + (100 * c.ns / idle.idle).toFixed(2) +
				" % of idle), " + c.n + " gaps");
			x += w;
			items.push([CAUSE_COLORS[c.cause % CAUSE_COLORS.length], c.label + " " +
				(100 * c.ns / idle.idle).toFixed(1) + " %"]);
		});
		legend(box, items);
	}

	function chartHist() {
		var box = document.getElementById("gp-chart-hist");
		var h = data.idle.hist, W = 560, H = 170, B = 34, T = 14;
		var max = 1;
		h.forEach(function (b) { max = Math.max(max, b.n); });
		var s = svg("svg", { width: W, height: H, viewBox: "0 0 " + W + " " + H, role: "img" }, box);
		var bw = W / h.length;
		h.forEach(function (b, i) {
			var bh = (H - B - T) * b.n / max;
			var label = b.hi === null ? "\u2265" + fmtShort(b.lo) : b.lo ? fmtShort(b.lo) +
				"\u2013" + fmtShort(b.hi) : "<" + fmtShort(b.hi);
			var r = svg("rect", { x: i * bw + 4, y: H - B - bh, width: bw - 8, height: bh,
				fill: "#5b8bd9" }, s);
			svgTitle(r, label + ": " + b.n + " gaps, " + fmtNs(b.ns));
			svg("text", { x: i * bw + bw / 2, y: H - B - bh - 3, "text-anchor": "middle" }, s)
				.textContent = b.n;
			svg("text", { x: i * bw + bw / 2, y: H - B + 14, "text-anchor": "middle" }, s)
				.textContent = label;
		});
	}

	/* ---- timeline */

	var timeline = (function () {
		var tl = data.timeline, box = document.getElementById("gp-timeline");
		var tip = document.getElementById("gp-tip"), info = document.getElementById("gp-tl-info");
		var select = document.getElementById("gp-step");
		var canvas = document.createElement("canvas"), ctx = canvas.getContext("2d");
		var LABEL = 190, AXIS = 22, ROW = 14, GPUROW = 18;
		var cur = null; /* the view shown: its lanes, rows and extent */
		var v0 = 0, v1 = 1;
		box.appendChild(canvas);

		var kindOrder = { gpu: 0, nvtx: 1, api: 2 };
		function laneOrder(a, b) {
			var la = tl.lanes[a], lb = tl.lanes[b];
			if (la.proc !== lb.proc) return la.proc - lb.proc;
			var ga = la.kind === "gpu" ? 0 : 1, gb = lb.kind === "gpu" ? 0 : 1;
			if (ga !== gb) return ga - gb;
			if (la.a !== lb.a) return la.a - lb.a;
			if (kindOrder[la.kind] !== kindOrder[lb.kind]) return kindOrder[la.kind] - kindOrder[lb.kind];
			return la.b - lb.b;
		}

		function prepare(vi) {
			var v = tl.views[vi], n = v.t.length, byLane = {};
			for (var i = 0; i < n; i++) (byLane[v.lane[i]] = byLane[v.lane[i]] || []).push(i);
			var ids = Object.keys(byLane).map(Number).sort(laneOrder);
			var y = AXIS, lanes = ids.map(function (id) {
				var ev = byLane[id], lane = tl.lanes[id], depth = 0, maxd = 0;
				ev.sort(function (a, b) { return v.t[a] - v.t[b] || v.d[b] - v.d[a]; });
				ev.forEach(function (e) {
					maxd = Math.max(maxd, v.d[e]);
					if (lane.kind === "nvtx") depth = Math.max(depth, v.x[e]);
				});
				var rows = lane.kind === "nvtx" ? Math.min(depth, 15) + 1 : 1;
				var h = lane.kind === "gpu" ? GPUROW : rows * ROW;
				var l = { id: id, lane: lane, ev: ev, maxd: maxd, y: y, h: h, rows: rows };
				y += h + 3;
				return l;
			});
			var gaps = [];
			for (var g = 0; g + 3 < v.gaps.length; g += 4)
				gaps.push({ dev: v.gaps[g], t: v.gaps[g + 1], d: v.gaps[g + 2], cause: v.gaps[g + 3] });
			return { vi: vi, v: v, lanes: lanes, height: y + 4, gaps: gaps,
				span: Math.max(v.end - v.start, 1) };
		}

		function color(lane, v, e) {
			var name = tl.names[v.n[e]];
			if (lane.kind === "gpu") {
				if (v.x[e] === 2) return "#e08a2c";
				if (v.x[e] === 3) return "#8a8f98";
				return "hsl(" + (hash(name) % 360) + ",55%,52%)";
			}
			if (lane.kind === "nvtx") return "hsl(" + (110 + hash(name) % 60) + ",40%," + (62 - 4 * Math.min(v.x[e], 6)) + "%)";
			if (/ynchronize|Sync/.test(name)) return "#c2412d";
			return "hsl(" + (200 + hash(name) % 40) + ",30%,60%)";
		}

		function rowOf(l, v, e) {
			return l.lane.kind === "nvtx" ? Math.min(v.x[e], l.rows - 1) : 0;
		}

		/* First event of a lane that can reach t: starts no earlier than t - its longest event. */
		function firstFrom(l, v, t) {
			var lo = 0, hi = l.ev.length, from = t - l.maxd;
			while (lo < hi) {
				var mid = (lo + hi) >> 1;
				if (v.t[l.ev[mid]] < from) lo = mid + 1; else hi = mid;
			}
			return lo;
		}

		/*
		 * The label column as wide as the widest lane label (within 120 px and a
		 * third of the width); a label still too long loses its middle ("…"),
		 * never its ends. Each lane's drawn label is kept in l.drawn.
		 */
		function labelColumn(W) {
			var widest = 0;
			cur.lanes.forEach(function (l) { widest = Math.max(widest, ctx.measureText(l.lane.label).width); });
			LABEL = Math.round(Math.max(120, Math.min(widest + 14, W / 3)));
			var room = LABEL - 10, cut = 0;
			cur.lanes.forEach(function (l) {
				var s = l.lane.label, k = s.length;
				while (k > 4 && ctx.measureText(s).width > room) {
					k--;
					s = l.lane.label.slice(0, Math.ceil(k / 2)) + "\u2026" + l.lane.label.slice(l.lane.label.length - Math.floor(k / 2));
				}
				l.drawn = s;
				if (s !== l.lane.label) cut++;
			});
			box.dataset.labelWidth = String(LABEL);
			box.dataset.labelsCut = String(cut);
		}

		function draw() {
			if (!cur) return;
			var W = Math.max(box.clientWidth, 400), H = cur.height;
			var dpr = window.devicePixelRatio || 1;
			canvas.width = W * dpr;
			canvas.height = H * dpr;
			canvas.style.width = W + "px";
			canvas.style.height = H + "px";
			ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
			ctx.clearRect(0, 0, W, H);
			ctx.font = "11px system-ui, sans-serif";
			labelColumn(W);
			var v = cur.v, pw = W - LABEL, scale = pw / (v1 - v0);
			var X = function (t) { return LABEL + (t - v0) * scale; };

			/* axis */
			ctx.font = "11px system-ui, sans-serif";
			ctx.fillStyle = "#5b6475";
			ctx.strokeStyle = "#e3e7ee";
			var step = Math.pow(10, Math.floor(Math.log10((v1 - v0) / 6)));
			if ((v1 - v0) / step > 12) step *= 2;
			if ((v1 - v0) / step > 12) step *= 2.5;
			for (var t = Math.ceil(v0 / step) * step; t <= v1; t += step) {
				var x = X(t);
				ctx.beginPath();
				ctx.moveTo(x, AXIS - 4);
				ctx.lineTo(x, H);
				ctx.stroke();
				ctx.fillText(fmtShort(t), x + 2, 12);
			}

			var shaded = {}; /* cause -> gaps shaded, for the legend (and the tests) */
			cur.lanes.forEach(function (l) {
				/* idle shading behind the device's lanes */
				if (l.lane.kind === "gpu") {
					cur.gaps.forEach(function (g) {
						if (g.dev !== l.lane.dev || g.t + g.d < v0 || g.t > v1) return;
						shaded[g.cause] = (shaded[g.cause] || 0) + 1;
						var a = Math.max(X(g.t), LABEL), b = Math.min(X(g.t + g.d), W);
						ctx.fillStyle = CAUSE_COLORS[g.cause % CAUSE_COLORS.length];
						ctx.globalAlpha = 0.22;
						ctx.fillRect(a, l.y, Math.max(b - a, 1), l.h);
						ctx.globalAlpha = 1;
					});
				}
				var pend = null; /* merged sub-pixel events: [x0, x1, row, color] */
				var flush = function () {
					if (!pend) return;
					ctx.fillStyle = pend[3];
					ctx.fillRect(pend[0], l.y + pend[2] * ROW, Math.max(pend[1] - pend[0], 1),
						l.lane.kind === "gpu" ? GPUROW : ROW - 1);
					pend = null;
				};
				for (var i = firstFrom(l, v, v0); i < l.ev.length; i++) {
					var e = l.ev[i], s = v.t[e], d = v.d[e];
					if (s > v1) break;
					if (s + d < v0) continue;
					var x0 = Math.max(X(s), LABEL), x1 = Math.min(X(s + d), W), row = rowOf(l, v, e);
					if (x1 - x0 < 1) {
						if (pend && pend[2] === row && x0 <= pend[1] + 1) {
							pend[1] = Math.max(pend[1], x1);
						} else {
							flush();
							pend = [x0, x1, row, color(l.lane, v, e)];
						}
						continue;
					}
					flush();
					var h = l.lane.kind === "gpu" ? GPUROW : ROW - 1, y = l.y + row * ROW;
					ctx.fillStyle = color(l.lane, v, e);
					ctx.fillRect(x0, y, x1 - x0, h);
					if (x1 - x0 > 36) {
						ctx.save();
						ctx.beginPath();
						ctx.rect(x0, y, x1 - x0, h);
						ctx.clip();
						ctx.fillStyle = "#10151f";
						ctx.fillText(tl.names[v.n[e]], x0 + 3, y + h - 4);
						ctx.restore();
					}
				}
				flush();
				/* label column */
				ctx.fillStyle = "#f5f7fa";
				ctx.fillRect(0, l.y, LABEL - 4, l.h);
				ctx.fillStyle = "#1d2330";
				ctx.save();
				ctx.beginPath();
				ctx.rect(0, l.y, LABEL - 6, l.h);
				ctx.clip();
				ctx.fillText(l.drawn, 4, l.y + Math.min(l.h, GPUROW) - 5);
				ctx.restore();
			});
			var st = tl.steps[v.step];
			info.textContent = st.label + ": wall " + fmtNs(st.wall) + ", GPU busy " + fmtNs(st.busy) +
				"; " + v.t.length + (v.t.length === 1 ? " event" : " events") + (v.cut ? " (cut at " + fmtNs(v.end - v.start) +
				" of " + fmtNs(v.window_end - v.start) + " to stay within " + tl.max_events +
				" events)" : "") + "; showing " + fmtShort(v1 - v0);
			shadeLegend(shaded);
			box.dataset.drawn = String(+box.dataset.drawn + 1 || 1);
		}

		/* Which colour is which idle cause: the causes shaded in the view drawn. */
		function shadeLegend(shaded) {
			var lg = document.getElementById("gp-tl-legend");
			if (!lg) {
				lg = document.createElement("div");
				lg.id = "gp-tl-legend";
				lg.className = "gp-legend";
				box.parentNode.insertBefore(lg, box.nextSibling);
			}
			lg.textContent = "";
			Object.keys(shaded).map(Number).sort(function (a, b) { return a - b; }).forEach(function (k) {
				var c = data.idle.causes[k], it = document.createElement("span");
				it.className = "gp-shade-key";
				it.dataset.cause = c ? c.key : String(k);
				var sw = document.createElement("i");
				sw.style.background = CAUSE_COLORS[k % CAUSE_COLORS.length];
				it.appendChild(sw);
				it.appendChild(document.createTextNode((c ? c.label : "cause " + k) + " (idle)"));
				lg.appendChild(it);
			});
		}

		function show(vi) {
			if (vi < 0 || vi >= tl.views.length) return;
			cur = prepare(vi);
			v0 = 0;
			v1 = cur.span;
			select.value = String(cur.v.step);
			draw();
		}

		function zoom(f, at) {
			var span = v1 - v0, ns = Math.min(Math.max(span * f, 100), cur.span * 4);
			var r = (at - v0) / span;
			v0 = at - r * ns;
			v1 = v0 + ns;
			draw();
		}

		function timeAt(px) {
			return v0 + (px - LABEL) * (v1 - v0) / (canvas.clientWidth - LABEL);
		}

		function hit(x, y) {
			if (!cur || x < LABEL) return null;
			var v = cur.v, t = timeAt(x), tol = 2 * (v1 - v0) / (canvas.clientWidth - LABEL);
			for (var k = 0; k < cur.lanes.length; k++) {
				var l = cur.lanes[k];
				if (y < l.y || y >= l.y + l.h) continue;
				var row = l.lane.kind === "nvtx" ? Math.floor((y - l.y) / ROW) : 0, best = -1;
				for (var i = firstFrom(l, v, t - tol); i < l.ev.length; i++) {
					var e = l.ev[i];
					if (v.t[e] > t + tol) break;
					if (v.t[e] + v.d[e] + tol < t || rowOf(l, v, e) !== row) continue;
					if (best < 0 || v.d[e] < v.d[best]) best = e;
				}
				if (best >= 0) return { lane: l.lane, e: best };
				if (l.lane.kind === "gpu") {
					for (var g = 0; g < cur.gaps.length; g++) {
						var gp = cur.gaps[g];
						if (gp.dev === l.lane.dev && t >= gp.t && t < gp.t + gp.d)
							return { lane: l.lane, gap: gp };
					}
				}
				return null;
			}
			return null;
		}

		var drag = null;
		canvas.addEventListener("wheel", function (e) {
			if (!cur) return;
			e.preventDefault();
			zoom(e.deltaY < 0 ? 0.8 : 1.25, timeAt(e.offsetX));
		}, { passive: false });
		canvas.addEventListener("mousedown", function (e) { drag = { x: e.clientX, v0: v0, v1: v1 }; });
		window.addEventListener("mouseup", function () { drag = null; });
		canvas.addEventListener("mouseleave", function () { tip.hidden = true; });
		canvas.addEventListener("mousemove", function (e) {
			if (drag && cur) {
				var dt = (e.clientX - drag.x) * (drag.v1 - drag.v0) / (canvas.clientWidth - LABEL);
				v0 = drag.v0 - dt;
				v1 = drag.v1 - dt;
				draw();
				return;
			}
			var h = hit(e.offsetX, e.offsetY);
			if (!h) { tip.hidden = true; return; }
			var v = cur.v, text;
			if (h.gap) {
				var c = data.idle.causes[h.gap.cause];
				text = "idle: " + (c ? c.label : "?") + "\n" + fmtNs(h.gap.d) + " at +" + fmtNs(h.gap.t);
			} else {
				var full = tl.full[v.n[h.e]];
				text = tl.names[v.n[h.e]] + (full ? "\n" + full : "") + "\n" + fmtNs(v.d[h.e]) +
					" at +" + fmtNs(v.t[h.e]) + "\n" + h.lane.label;
			}
			tip.textContent = text;
			tip.hidden = false;
			tip.style.left = Math.min(e.clientX + 14, window.innerWidth - 380) + "px";
			tip.style.top = (e.clientY + 14) + "px";
		});
		box.tabIndex = 0;
		box.addEventListener("keydown", function (e) {
			if (!cur) return;
			if (e.key === "+" || e.key === "=") zoom(0.8, (v0 + v1) / 2);
			else if (e.key === "-") zoom(1.25, (v0 + v1) / 2);
			else if (e.key === "ArrowLeft") { var d = (v1 - v0) / 10; v0 -= d; v1 -= d; draw(); }
			else if (e.key === "ArrowRight") { var d2 = (v1 - v0) / 10; v0 += d2; v1 += d2; draw(); }
		});
		document.getElementById("gp-reset").addEventListener("click", function () {
			if (cur) { v0 = 0; v1 = cur.span; draw(); }
		});
		window.addEventListener("resize", draw);

		tl.steps.forEach(function (st, i) {
			var o = document.createElement("option");
			o.value = String(i);
			o.textContent = st.label + " \u2014 " + fmtShort(st.wall) + (st.view < 0 ? " (not embedded)" : "");
			o.disabled = st.view < 0;
			select.appendChild(o);
		});
		select.addEventListener("change", function () { show(tl.steps[+select.value].view); });
		if (!tl.views.length) info.textContent = "no events to show";

		return {
			show: show,
			zoom: function (f) { if (cur) zoom(f, (v0 + v1) / 2); },
			range: function () { return [v0, v1]; },
			current: function () { return cur ? cur.v.step : -1; },
		};
	})();

	setupTables();
	chartSteps();
	chartIdle();
	chartHist();
	/* Open on the first embedded step with GPU work, when there is one. */
	var opening = data.timeline.steps.filter(function (st) { return st.ops > 0 && st.view >= 0; });
	timeline.show(opening.length ? opening[0].view : 0);
	window.gpuprofReport = { timeline: timeline, sortTable: sortTable, filterTable: filterTable };
	document.documentElement.dataset.ready = "1";
})();
