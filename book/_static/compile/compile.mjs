// The "Compile a config" page: starts Pyodide (served with the book, ../pyodide/), unpacks flashtune and its
// data snapshot (flashtune-web.zip, built by scripts/build_book.py), and sends the form to
// flashtune.cli.web, which runs compile-config itself. This file only moves text between the form and Python
// and draws the result; every decision is the compiler's.
import { loadPyodide } from "../pyodide/pyodide.mjs";

const form = document.getElementById("ft-form");
const statusLine = document.getElementById("ft-status");
const compileButton = document.getElementById("ft-compile");
const state = { py: null, web: null, base: null, result: null, started: performance.now(), marks: {} };
window.flashtuneCompile = state; // for the tests and the benchmark: timings and the last result

function setStatus(text) {
  statusLine.textContent = text;
}

function el(tag, attrs = {}, text = null) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== null) node.textContent = text;
  return node;
}

function fillSelect(name, values, selected) {
  const select = form.elements[name];
  select.replaceChildren(...values.map((v) => el("option", { value: v }, v === "" ? "(default)" : v)));
  if (selected !== undefined && selected !== null) select.value = String(selected);
}

function formData() {
  const out = {};
  for (const control of form.elements) {
    if (!control.name) continue;
    if (control.type === "radio" && !control.checked) continue;
    if (control.type === "checkbox") {
      if (control.name === "allow-unsafe") {
        out[control.name] = out[control.name] || [];
        if (control.checked) out[control.name].push(control.value);
      } else if (control.checked) {
        out[control.name] = control.value;
      }
      continue;
    }
    out[control.name] = control.value;
  }
  return out;
}

function setFields(fields) {
  for (const [name, value] of Object.entries(fields)) {
    const control = form.elements[name];
    if (control) control.value = value === null ? "" : String(value);
  }
}

function showMode() {
  const hardware = form.elements.use.value === "hardware";
  form.classList.toggle("ft-mode-hardware", hardware);
  for (const control of form.querySelectorAll(".ft-hw input, .ft-hw select")) {
    const always = control.name === "nodes" || control.name === "clients";
    control.disabled = !hardware && !always;
  }
}

function showWorkload() {
  const mysql = form.elements.workload.value === "mysql";
  for (const row of form.querySelectorAll(".ft-mysql")) row.hidden = !mysql;
}

function clearErrors() {
  for (const span of form.querySelectorAll(".ft-err")) span.textContent = "";
  for (const bad of form.querySelectorAll(".ft-bad")) bad.classList.remove("ft-bad");
  document.getElementById("ft-error").hidden = true;
}

function showError(message, field) {
  clearErrors();
  document.getElementById("ft-error-text").textContent = message;
  document.getElementById("ft-error").hidden = false;
  const span = field && form.querySelector(`.ft-err[data-error-for="${field}"]`);
  if (span) {
    span.textContent = message;
    const control = form.elements[field];
    if (control && control.classList) control.classList.add("ft-bad");
    span.scrollIntoView({ block: "center" });
  }
}

function callPython(fn, ...args) {
  const result = state.web[fn](...args);
  return result;
}

function download(name, bytes, type) {
  const url = URL.createObjectURL(new Blob([bytes], { type }));
  const a = el("a", { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

// --- explain.md, rendered: headings, paragraphs, lists, tables, code blocks, inline code and bold ----------
function inline(text, parent) {
  const parts = text.split(/(`[^`]+`|\*\*[^*]+\*\*)/);
  for (const part of parts) {
    if (part.startsWith("`") && part.endsWith("`") && part.length > 1) parent.append(el("code", {}, part.slice(1, -1)));
    else if (part.startsWith("**") && part.endsWith("**") && part.length > 3) parent.append(el("strong", {}, part.slice(2, -2)));
    else if (part) parent.append(document.createTextNode(part));
  }
  return parent;
}

function cells(line) {
  return line.trim().replace(/^\|/, "").replace(/\|$/, "").split("|").map((c) => c.trim());
}

function renderMarkdown(text, target) {
  const lines = text.replace(/<!--[\s\S]*?-->\n?/g, "").split("\n");
  target.replaceChildren();
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (!line.trim()) { i++; continue; }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      const level = Math.min(6, heading[1].length + 2);
      target.append(inline(heading[2], el(`h${level}`)));
      i++;
    } else if (line.startsWith("```")) {
      const body = [];
      i++;
      while (i < lines.length && !lines[i].startsWith("```")) body.push(lines[i++]);
      i++;
      target.append(el("pre", {}, body.join("\n")));
    } else if (line.trim().startsWith("|")) {
      const rows = [];
      while (i < lines.length && lines[i].trim().startsWith("|")) rows.push(lines[i++]);
      const table = el("table");
      const head = el("thead");
      const tr = el("tr");
      for (const c of cells(rows[0])) tr.append(inline(c, el("th")));
      head.append(tr);
      table.append(head);
      const body = el("tbody");
      for (const row of rows.slice(/^\|?\s*:?-/.test(rows[1] || "") ? 2 : 1)) {
        const r = el("tr");
        for (const c of cells(row)) r.append(inline(c, el("td")));
        body.append(r);
      }
      table.append(body);
      const wrap = el("div", { class: "ft-table" });
      wrap.append(table);
      target.append(wrap);
    } else if (/^\s*([-*]|\d+\.)\s+/.test(line)) {
      const ordered = /^\s*\d+\./.test(line);
      const list = el(ordered ? "ol" : "ul");
      while (i < lines.length && /^\s*([-*]|\d+\.)\s+/.test(lines[i])) {
        let item = lines[i++].replace(/^\s*([-*]|\d+\.)\s+/, "");
        while (i < lines.length && /^\s{2,}\S/.test(lines[i]) && !/^\s*([-*]|\d+\.)\s+/.test(lines[i])) item += " " + lines[i++].trim();
        list.append(inline(item, el("li")));
      }
      target.append(list);
    } else {
      const para = [];
      while (i < lines.length && lines[i].trim() && !/^(#|```|\s*\||\s*([-*]|\d+\.)\s)/.test(lines[i])) para.push(lines[i++]);
      if (!para.length) para.push(lines[i++]);
      target.append(inline(para.join(" "), el("p")));
    }
  }
}

// --- the result --------------------------------------------------------------------------------------------
function table(headers, rows) {
  const t = el("table");
  const tr = el("tr");
  for (const h of headers) tr.append(el("th", {}, h));
  t.append(el("thead"));
  t.firstChild.append(tr);
  const body = el("tbody");
  for (const row of rows) {
    const r = el("tr");
    for (const c of row) r.append(el("td", {}, c === null || c === undefined ? "-" : String(c)));
    body.append(r);
  }
  t.append(body);
  return t;
}

function showResult(result) {
  const files = result.files;
  const manifest = files["manifest.json"] ? JSON.parse(files["manifest.json"]) : {};
  document.getElementById("ft-command").textContent = ["compile-config", ...result.argv].join(" ");
  document.getElementById("ft-folder").textContent = `${result.folder}/ (${Object.keys(files).length} files)`;
  const budget = manifest.memory_budget_gib || {};
  const ram = (manifest.hardware || {}).ram_gib;
  const total = Object.values(budget).reduce((a, b) => a + b, 0);
  const rows = Object.entries(budget).map(([k, v]) => [k, v.toFixed(2), ram ? `${((100 * v) / ram).toFixed(1)} %` : "-"]);
  rows.push(["total", total.toFixed(2), ram ? `${((100 * total) / ram).toFixed(1)} % of ${ram} GiB` : "-"]);
  document.getElementById("ft-memory").replaceChildren(table(["on one OSD node", "GiB", "share of RAM"], rows));
  const env = manifest.envelope || {};
  const envRows = (env.standard || []).map((c) => [c.case, c.predicted_IOPS, c.predicted_MB_s, c.limit, c.headroom]);
  const envBox = document.getElementById("ft-envelope");
  envBox.replaceChildren(table(["case", "IOPS", "MB/s", "limited by", "headroom of the other resources"], envRows));
  if (env.cluster) envBox.prepend(el("p", {}, env.cluster));
  const list = document.getElementById("ft-files");
  list.replaceChildren();
  for (const path of Object.keys(files).sort()) {
    const details = el("details", { class: "ft-file" });
    details.append(el("summary", {}, path));
    details.append(el("pre", { "data-file": path }, files[path]));
    list.append(details);
  }
  renderMarkdown(files["explain.md"] || "", document.getElementById("ft-explain"));
  document.getElementById("ft-result").hidden = false;
}

function compileNow() {
  clearErrors();
  const t0 = performance.now();
  const data = formData();
  const out = JSON.parse(callPython("compile_form", JSON.stringify(data), JSON.stringify(state.base)));
  out.ms = performance.now() - t0;
  state.result = out;
  state.compiles = (state.compiles || 0) + 1;
  state.timings = [...(state.timings || []), out.ms];
  if (out.code !== 0) {
    document.getElementById("ft-result").hidden = true;
    showError(out.stderr.trimEnd(), out.field);
    setStatus(`compile-config exited with code ${out.code}`);
  } else {
    showResult(out);
    setStatus(`Compiled in ${(out.ms / 1000).toFixed(2)} s.`);
  }
  form.dataset.compiles = String(state.compiles);
  return out;
}

async function start() {
  setStatus("Starting Python in the page (Pyodide)…");
  const mark = (name) => (state.marks[name] = Math.round(performance.now() - state.started));
  const pyodideURL = new URL("../pyodide/", import.meta.url).href;
  const bundle = fetch(new URL("flashtune-web.zip", import.meta.url)); // while Pyodide starts
  const py = await loadPyodide({ indexURL: pyodideURL });
  mark("pyodide");
  setStatus("Loading flashtune and its data…");
  const zip = await bundle;
  if (!zip.ok) throw new Error(`flashtune-web.zip: HTTP ${zip.status}`);
  const site = py.runPython("import sysconfig; sysconfig.get_path('purelib')");
  py.unpackArchive(new Uint8Array(await zip.arrayBuffer()), "zip", { extractDir: site });
  mark("unpacked");
  state.web = py.pyimport("flashtune.cli.web");
  state.py = py;
  mark("imported");
  const choices = JSON.parse(JSON.stringify(state.web.choices().toJs({ dict_converter: Object.fromEntries })));
  mark("choices");
  const opt = choices.options;
  fillSelect("tier", opt.tier.choices, "iops");
  fillSelect("workload", opt.workload.choices, opt.workload.choices.includes("mysql") ? "mysql" : undefined);
  fillSelect("ceph-release", opt["ceph-release"].choices, opt["ceph-release"].default);
  fillSelect("mysql", opt.mysql.choices, opt.mysql.default);
  fillSelect("bench-scale", opt["bench-scale"].choices, opt["bench-scale"].default);
  fillSelect("data-device-type", choices.device_types);
  fillSelect("db-device-type", ["", ...choices.device_types]);
  fillSelect("nic-role", ["", ...choices.nic_roles]);
  const box = document.getElementById("ft-unsafe-list");
  for (const u of choices.unsafe) {
    const label = el("label", { class: "ft-unsafe-knob" });
    label.append(el("input", { type: "checkbox", name: "allow-unsafe", value: u.knob }), ` ${u.knob} `);
    label.append(el("em", {}, `(${u.safety})`));
    box.append(label);
  }
  setFields(state.web.tier_fields("iops").toJs({ dict_converter: Object.fromEntries }));
  setFields({ nodes: "", clients: "" });
  showMode();
  showWorkload();
  state.ready = performance.now() - state.started;
  compileButton.disabled = false;
  form.dataset.ready = "1";
  setStatus(`Ready (Python started in ${(state.ready / 1000).toFixed(1)} s).`);
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  if (state.web) compileNow();
});
form.addEventListener("change", (event) => {
  const name = event.target.name;
  if (name === "use") {
    if (form.elements.use.value === "hardware" && state.web && !state.base) {
      setFields(state.web.tier_fields(form.elements.tier.value).toJs({ dict_converter: Object.fromEntries }));
    } else if (form.elements.use.value === "tier" && !state.base) {
      setFields({ nodes: "", clients: "" });
    }
    showMode();
  }
  if (name === "tier" && form.elements.use.value === "hardware" && state.web && !state.base) {
    setFields(state.web.tier_fields(form.elements.tier.value).toJs({ dict_converter: Object.fromEntries }));
  }
  if (name === "workload") showWorkload();
});
document.getElementById("ft-load").addEventListener("change", async (event) => {
  const file = event.target.files[0];
  if (!file || !state.web) return;
  const text = await file.text();
  const loaded = state.web.load_hardware(text, file.name).toJs({ dict_converter: Object.fromEntries });
  if (loaded.error) {
    showError(loaded.error, "hardware");
    return;
  }
  clearErrors();
  state.base = loaded.tree;
  form.elements.hardware.value = loaded.name;
  form.elements.use.value = "hardware";
  setFields(loaded.fields);
  document.getElementById("ft-hardware-name").textContent = `loaded ${loaded.name}; fields the form has no control for are kept`;
  showMode();
});
document.getElementById("ft-save").addEventListener("click", () => {
  if (!state.web) return;
  const data = formData();
  let base = state.base;
  if (!base) base = state.web.tier_tree(form.elements.tier.value).toJs({ dict_converter: Object.fromEntries });
  const text = state.web.hardware_yaml(state.py.toPy(data), state.py.toPy(base));
  download(form.elements.hardware.value || "hardware.yaml", text, "application/yaml");
});
document.getElementById("ft-zip").addEventListener("click", () => {
  const r = state.result;
  if (!r || r.code !== 0) return;
  const bytes = state.web.zip_folder(r.folder, JSON.stringify(r.files));
  download(`${r.folder}.zip`, bytes.toJs(), "application/zip");
  bytes.destroy();
});

start().catch((error) => {
  setStatus(`Python could not start in this page: ${error}`);
  state.failed = String(error);
});
