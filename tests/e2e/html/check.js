/* Checks the HTML report in a browser: appended to a copy of the page by
 * t3001-html-report.sh, run by headless Chromium, results read from the DOM
 * (--dump-dom). Every line is "ok NAME" or "FAIL NAME: why"; "DONE" last. */
(function () {
	"use strict";
	var out = [];
	function check(name, cond, why) { out.push((cond ? "ok " : "FAIL ") + name + (cond ? "" : ": " + why)); }
	function rows(table) {
		return Array.prototype.filter.call(table.tBodies[0].rows, function (r) { return !r.hidden; });
	}
	function col(table, name) {
		var th = table.tHead.rows[0].cells;
		for (var i = 0; i < th.length; i++) if (th[i].textContent === name) return i;
		return -1;
	}
	/* every word of an element's text on one line */
	/* (in table cells a line may break after a hyphen, as in any text; headers never) */
	function words(el, what, hyphens) {
		var walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT), node;
		while ((node = walk.nextNode())) wordsIn(node, what, hyphens);
	}
	function wordsIn(node, what, hyphens) {
		var re = hyphens ? /[^\s-]+-?/g : /\S+/g, m;
		while ((m = re.exec(node.data))) {
			var r = document.createRange();
			r.setStart(node, m.index);
			r.setEnd(node, m.index + m[0].length);
			var tops = {};
			Array.prototype.forEach.call(r.getClientRects(), function (x) { tops[Math.round(x.top)] = 1; });
			if (Object.keys(tops).length > 1) out.push("FAIL word broken in " + what + ": " + m[0]);
		}
	}
	function num(s) { return s === "" ? -Infinity : parseFloat(s.replace(/[,%\s]/g, "")); }
	try {
		check("no-errors", window.__gpErrors.length === 0, window.__gpErrors.join(" | "));
		check("ready", document.documentElement.dataset.ready === "1", "the page script did not finish");
		var want = (document.getElementById("gp-test-sections").textContent || "").split(/\s+/).filter(Boolean);
		want.forEach(function (id) {
			var s = document.getElementById(id);
			check("section " + id, !!s, "missing");
		});
		document.querySelectorAll("section.gp-tables").forEach(function (s) {
			var t = s.querySelector("table.gp-table");
			if (t) check("rows " + s.id, t.tBodies[0].rows.length > 0, "empty table");
		});
		["gp-chart-steps", "gp-chart-idle", "gp-chart-hist"].forEach(function (id) {
			var n = document.querySelectorAll("#" + id + " svg rect").length;
			check("chart " + id, n > 0, "no bars drawn");
		});
		var fr = document.querySelector("iframe.gp-flame");
		if (fr) check("flame frame", fr.getBoundingClientRect().height > 60 && /^data:image\/svg\+xml;base64,/.test(fr.src), "frame not laid out");
		/* the operator roofline: its frame laid out, its points and roofs drawn */
		var rf = document.querySelector("iframe.gp-roofline");
		if (rf) {
			var rd = rf.contentDocument;
			check("roofline frame", rf.getBoundingClientRect().height > 300 && /^data:image\/svg\+xml;base64,/.test(rf.src), "frame not laid out");
			check("roofline points", !rd || rd.querySelectorAll("circle").length > 0, "no points");
		}
		/* timeline drawn: lanes exist and the canvas has coloured pixels */
		var c = document.querySelector("#gp-timeline canvas");
		check("timeline canvas", c && c.width > 0 && c.height > 40, "no canvas");
		var px = c.getContext("2d").getImageData(0, 0, c.width, c.height).data, coloured = 0;
		for (var i = 0; i < px.length; i += 4) if (px[i + 3] && !(px[i] > 240 && px[i + 1] > 240 && px[i + 2] > 240)) coloured++;
		check("timeline pixels", coloured > 2000, "only " + coloured + " coloured pixels");
		/* Every idle cause of the view shown is shaded, and the legend names it; lane
		 * labels are drawn whole (the label column fits them at this width). */
		var tld = JSON.parse(document.getElementById("gp-data").textContent);
		var tlBox = document.getElementById("gp-timeline");
		var shownView = tld.timeline.views[tld.timeline.steps[window.gpuprofReport.timeline.current()].view];
		var wantCauses = {}, gotCauses = {};
		for (var gi = 0; shownView && gi + 3 < shownView.gaps.length; gi += 4)
			wantCauses[tld.idle.causes[shownView.gaps[gi + 3]].key] = 1;
		document.querySelectorAll("#gp-tl-legend .gp-shade-key").forEach(function (k) { gotCauses[k.dataset.cause] = 1; });
		check("shading per cause", Object.keys(wantCauses).sort().join() === Object.keys(gotCauses).sort().join(),
			"gaps of " + Object.keys(wantCauses).join() + ", legend " + Object.keys(gotCauses).join());
		check("lane labels whole", tlBox.dataset.labelsCut === "0",
			tlBox.dataset.labelsCut + " lane labels cut in a column of " + tlBox.dataset.labelWidth + " px");
		/* the picker opens on the first embedded step with GPU work, when there is one */
		var gd = JSON.parse(document.getElementById("gp-data").textContent).timeline.steps;
		var withWork = gd.filter(function (st) { return st.ops > 0 && st.view >= 0; });
		var opened = gd[window.gpuprofReport.timeline.current()];
		check("opens on GPU work", !withWork.length || (opened && opened === withWork[0]),
			JSON.stringify(opened && opened.label));
		/* zoom: the range shrinks around its middle; the step picker switches views */
		var R = window.gpuprofReport, r0 = R.timeline.range();
		R.timeline.zoom(0.5);
		var r1 = R.timeline.range();
		check("zoom", Math.abs((r1[1] - r1[0]) - (r0[1] - r0[0]) / 2) < 1, JSON.stringify([r0, r1]));
		c.dispatchEvent(new WheelEvent("wheel", { deltaY: -100, clientX: 400, clientY: 30, bubbles: true, cancelable: true }));
		var r2 = R.timeline.range();
		check("wheel zoom", r2[1] - r2[0] < r1[1] - r1[0], JSON.stringify([r1, r2]));
		var sel = document.getElementById("gp-step"), opts = Array.prototype.filter.call(sel.options, function (o) { return !o.disabled; });
		if (opts.length > 1) {
			var before = R.timeline.current(), other = opts[opts.length - 1].value === String(before) ? opts[0] : opts[opts.length - 1];
			sel.value = other.value;
			sel.dispatchEvent(new Event("change"));
			check("step picker", R.timeline.current() === +other.value, "still " + R.timeline.current());
		}
		/* hover over the first lane (a GPU lane) shows details of what is there */
		document.getElementById("gp-reset").click();
		var rect = c.getBoundingClientRect(), tip = document.getElementById("gp-tip"), shownTip = "";
		for (var hx = 200; hx < rect.width - 10 && !shownTip; hx += 7) {
			c.dispatchEvent(new MouseEvent("mousemove", { clientX: rect.left + hx, clientY: rect.top + 30, bubbles: true }));
			if (!tip.hidden) shownTip = tip.textContent;
		}
		check("hover", /\d (ns|\u00b5s|ms|s) at \+/.test(shownTip) && /GPU \d+ stream \d+|idle: /.test(shownTip), JSON.stringify(shownTip));
		c.dispatchEvent(new MouseEvent("mousemove", { clientX: rect.left + 5, clientY: rect.top + 5, bubbles: true }));
		check("hover off", tip.hidden, "the tip stayed");
		/* drag pans: the range moves by the dragged distance, its length stays */
		var p0 = R.timeline.range();
		c.dispatchEvent(new MouseEvent("mousedown", { clientX: rect.left + 600, clientY: rect.top + 30, bubbles: true }));
		c.dispatchEvent(new MouseEvent("mousemove", { clientX: rect.left + 500, clientY: rect.top + 30, bubbles: true }));
		window.dispatchEvent(new MouseEvent("mouseup", { bubbles: true }));
		var p1 = R.timeline.range();
		check("drag pan", p1[0] > p0[0] && Math.abs((p1[1] - p1[0]) - (p0[1] - p0[0])) < 1, JSON.stringify([p0, p1]));
		/* sorting and filtering on the kernel table */
		var kt = document.querySelector('table[data-key="kernels"]');
		var tc = col(kt, "Total Time"), nc = col(kt, "Name");
		/* Times read in scaled units; the exact ns stay in data-v, which sorting uses. */
		var t0 = kt.tBodies[0].rows[0].cells[tc];
		check("time cell units", /^\d[\d.,]* (ns|\u00b5s|ms|s)$/.test(t0.textContent) && /^\d+$/.test(t0.dataset.v || ""),
			JSON.stringify([t0.textContent, t0.dataset.v]));
		kt.tHead.rows[0].cells[tc].click();
		var v = rows(kt).map(function (r) { return num(r.cells[tc].dataset.v); });
		var desc = v.every(function (x, i) { return !i || v[i - 1] >= x; });
		check("sort numeric descending", desc && kt.tHead.rows[0].cells[tc].getAttribute("aria-sort") === "descending", v.join(","));
		kt.tHead.rows[0].cells[tc].click();
		v = rows(kt).map(function (r) { return num(r.cells[tc].dataset.v); });
		check("sort numeric ascending", v.every(function (x, i) { return !i || v[i - 1] <= x; }), v.join(","));
		kt.tHead.rows[0].cells[nc].click();
		var names = rows(kt).map(function (r) { return r.cells[nc].textContent.toLowerCase(); });
		check("sort text", names.every(function (x, i) { return !i || names[i - 1] <= x; }), names.join(" / "));
		var all = kt.tBodies[0].rows.length, input = kt.closest("section").querySelector("input.gp-filter");
		var q = document.getElementById("gp-test-filter").textContent;
		input.value = q;
		input.dispatchEvent(new Event("input"));
		var shown = rows(kt);
		check("filter", shown.length > 0 && shown.length < all && shown.every(function (r) {
			return r.textContent.toLowerCase().indexOf(q.toLowerCase()) >= 0; }), shown.length + " of " + all);
		var count = kt.closest("section").querySelector(".gp-count").textContent;
		check("filter count", count === shown.length + " of " + all + " rows", count);
		input.value = "";
		input.dispatchEvent(new Event("input"));
		check("filter cleared", rows(kt).length === all, rows(kt).length + " of " + all);
		/* Tables read at this width: a kernel name column at least 20 characters wide,
		 * one line per name (elided, the whole name in its title); no header and no
		 * word broken across lines. */
		var probe = document.createElement("span");
		probe.textContent = "00000000000000000000";
		probe.style.position = "absolute";
		probe.style.visibility = "hidden";
		document.querySelectorAll("table.gp-table").forEach(function (t) {
			var key = t.dataset.key, th = t.tHead.rows[0].cells;
			t.tBodies[0].appendChild(probe);
			probe.style.font = getComputedStyle(th[0]).font;
			var ch20 = probe.getBoundingClientRect().width;
			probe.remove();
			Array.prototype.forEach.call(th, function (h) { words(h, key + " header"); });
			Array.prototype.forEach.call(t.tBodies[0].rows, function (row) {
				Array.prototype.forEach.call(row.cells, function (td) {
					if (td.classList.contains("name")) {
						var nr = document.createRange(), tops = {};
						nr.selectNodeContents(td);
						Array.prototype.forEach.call(nr.getClientRects(), function (x) { tops[Math.round(x.top)] = 1; });
						if (td.getBoundingClientRect().width < ch20 || td.title !== td.textContent ||
						    Object.keys(tops).length > 1)
							out.push("FAIL name cell " + key + ": " + td.getBoundingClientRect().width + " px for 20 characters of " +
								ch20 + " px, " + Object.keys(tops).length + " lines");
						return;
					}
					words(td, key, true);
				});
			});
		});
		var occ = document.querySelector('table[data-key="occupancy"]');
		if (occ) {
			var kc = col(occ, "Kernel"), cell = occ.tBodies[0].rows[0].cells[kc];
			document.body.appendChild(probe);
			probe.style.font = getComputedStyle(cell).font;
			var w20 = probe.getBoundingClientRect().width;
			probe.remove();
			check("occupancy kernel column", cell.classList.contains("name") && cell.getBoundingClientRect().width >= w20,
				"kernel column " + cell.getBoundingClientRect().width + " px, 20 characters " + w20 + " px");
		}
		/* No table scrolls sideways at this width: each fits its box (scrollWidth <= clientWidth),
		 * the occupancy table (18 columns: secondary ones in a Details list per row) by name;
		 * an opened Details list floats over the rows below and widens nothing. */
		document.querySelectorAll("table.gp-table").forEach(function (t) {
			var w = t.parentNode;
			check("fits " + t.dataset.key, w.scrollWidth <= w.clientWidth,
				"scrollWidth " + w.scrollWidth + " > clientWidth " + w.clientWidth + " at " + window.innerWidth + " px");
		});
		if (occ) {
			var ow = occ.parentNode, det = occ.tBodies[0].rows[0].querySelector("td.gp-more details");
			check("occupancy table fits", ow.scrollWidth <= ow.clientWidth && occ.tHead.rows[0].cells.length <= 10,
				ow.scrollWidth + " > " + ow.clientWidth + " or " + occ.tHead.rows[0].cells.length + " columns");
			check("occupancy details", !!det && det.querySelectorAll("dt").length >= 8 &&
				/Regs/.test(det.textContent) && /Waves/.test(det.textContent), det ? det.textContent : "no details");
			if (det) {
				det.open = true;
				var dl = det.querySelector("dl"), r0 = dl.getBoundingClientRect(), wr = ow.getBoundingClientRect();
				check("occupancy details open", ow.scrollWidth <= ow.clientWidth && r0.width > 0 &&
					r0.left >= wr.left && r0.right <= wr.right + 1,
					"scrollWidth " + ow.scrollWidth + ", list " + r0.left + "-" + r0.right + " in " + wr.left + "-" + wr.right);
				det.open = false;
			}
		}
		/* Step numbers: the chart's first and last labels are the table's first and last steps. */
		var stt = document.querySelector('table[data-key="steps"]');
		if (stt) {
			var sc = col(stt, "Step"), srows = stt.tBodies[0].rows;
			var labels = Array.prototype.map.call(document.querySelectorAll("#gp-chart-steps svg > text"), function (x) { return x.textContent; })
				.filter(function (x) { return /^step /.test(x); });
			check("step chart numbers", labels[0] === "step " + srows[0].cells[sc].textContent.trim() &&
				labels[labels.length - 1] === "step " + srows[srows.length - 1].cells[sc].textContent.trim(), labels.join(","));
		}
		/* Counts read in the singular for one. */
		document.querySelectorAll("section.gp-tables").forEach(function (s) {
			var t = s.querySelector("table.gp-table"), cnt = s.querySelector(".gp-count");
			if (t && cnt) {
				var n = t.tBodies[0].rows.length;
				check("count " + s.id, cnt.textContent === n + (n === 1 ? " row" : " rows"), cnt.textContent);
			}
		});
		/* The flame graph's and the roofline's SVG, laid out here to measure them:
		 * every flame label within its frame, no two roofline labels overlapping. */
		function inlineSvg(frame) {
			var b = atob(frame.src.replace(/^data:image\/svg\+xml;base64,/, ""));
			var text = new TextDecoder().decode(Uint8Array.from(b, function (ch) { return ch.charCodeAt(0); }));
			var doc = new DOMParser().parseFromString(text, "image/svg+xml");
			var holder = document.createElement("div");
			holder.style.cssText = "position:absolute;left:0;top:0;visibility:hidden";
			holder.appendChild(document.importNode(doc.documentElement, true));
			document.body.appendChild(holder);
			return holder;
		}
		if (fr) {
			var fh = inlineSvg(fr), over = [];
			fh.querySelectorAll("#frames > g").forEach(function (g) {
				var t = g.querySelector("text"), r = g.querySelector("rect");
				if (t && t.textContent && t.getComputedTextLength() > +r.getAttribute("width") - 2)
					over.push(t.textContent);
			});
			check("flame labels fit", over.length === 0, over.slice(0, 5).join(" | "));
			fh.remove();
		}
		if (rf) {
			var rh = inlineSvg(rf), boxes = [], clash = [];
			rh.querySelectorAll("text.point-label, text.roof-label").forEach(function (t) {
				if (t.getAttribute("transform")) return; /* the memory roof's slanted label */
				var b = t.getBBox();
				boxes.forEach(function (o) {
					if (b.x < o.b.x + o.b.width && o.b.x < b.x + b.width && b.y < o.b.y + o.b.height && o.b.y < b.y + b.height)
						clash.push(o.t + " / " + t.textContent);
				});
				boxes.push({ b: b, t: t.textContent });
			});
			check("roofline labels apart", boxes.length > 0 && clash.length === 0, boxes.length + " labels; " + clash.join(" | "));
			rh.remove();
		}
		/* hostile names stay text */
		check("no injected markup", !document.querySelector("b.gp-injected"), "markup from a name became an element");
	} catch (e) {
		out.push("FAIL exception: " + e + " " + (e.stack || ""));
	}
	out.push("DONE");
	var pre = document.createElement("pre");
	pre.id = "gp-test-result";
	pre.textContent = out.join("\n");
	document.body.appendChild(pre);
})();
