// The "Compile a config" page: starts Pyodide (served with the book, ../pyodide/) from the memory snapshot the
// book build made after importing flashtune and compiling once (pyodide-snapshot.bin.gz,
// scripts/pyodide_snapshot.mjs), unpacks flashtune and its data snapshot (flashtune-web.zip, built by
// scripts/build_book.py), and sends the form to flashtune.cli.web, which runs compile-config itself. This file
// only moves text between the form and Python and draws the result; every decision is the compiler's.
import { loadPyodide } from "../pyodide/pyodide.mjs";
import createPyodideModule from "../pyodide/pyodide.asm.mjs";

// Downloads start as soon as this module runs, while the page is still drawing.
const bundleDownload = fetch(new URL("flashtune-web.zip", import.meta.url));
const snapshotDownload = fetch(new URL("pyodide-snapshot.bin.gz", import.meta.url));

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

// The hardware file's lists of groups: one row of controls per group (flashtune.cli.web.GROUPS). A row made
// from a loaded file remembers which of its groups it shows (data-from), so the fields the form has no control
// for (a device's model, its measured IOPS) stay with that group when rows are added or removed.
const GROUP_ROWS = {
  "data-devices": [
    ["type", "data-device-type", "device_types"],
    ["per node", "data-device-count", null],
    ["size (GB)", "data-device-size-gb", null],
  ],
  "db-devices": [
    ["type", "db-device-type", "device_types"],
    ["per node", "db-device-count", null],
    ["size (GB)", "db-device-size-gb", null],
  ],
  nics: [
    ["ports", "nic-count", null],
    ["speed (Gb/s)", "nic-speed-gbps", null],
    ["role", "nic-role", "nic_roles"],
  ],
};

function groupRows(group) {
  return [...form.querySelectorAll(`.ft-group[data-group="${group}"] .ft-group-row`)];
}

function addRow(group, values = {}, from = null) {
  const row = el("div", { class: "ft-group-row" });
  if (from !== null && from !== undefined) row.dataset.from = String(from);
  for (const [label, name, options] of GROUP_ROWS[group]) {
    let control;
    if (options) {
      const choices = options === "nic_roles" ? ["", ...state.choices.nic_roles] : state.choices[options];
      control = el("select", { name });
      control.append(...choices.map((v) => el("option", { value: v }, v === "" ? "(default)" : v)));
    } else {
      control = el("input", { name, type: "number", min: name.endsWith("-count") && group === "db-devices" ? "0" : "1" });
    }
    const value = values[name];
    control.value = value === undefined || value === null ? (options ? control.options[0].value : "") : String(value);
    const wrap = el("label", {}, `${label} `);
    wrap.append(control);
    row.append(wrap);
  }
  row.append(el("button", { type: "button", class: "ft-remove" }, "remove"));
  for (const [, name] of GROUP_ROWS[group]) row.append(el("span", { class: "ft-err", "data-error-for": name }));
  form.querySelector(`.ft-group[data-group="${group}"] .ft-rows`).append(row);
  return row;
}

function setRows(group, rows) {
  for (const row of groupRows(group)) row.remove();
  for (const values of rows) addRow(group, values, values.from);
}

function formData() {
  const out = {};
  for (const control of form.elements) {
    if (!control.name || control.closest(".ft-group-row")) continue;
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
  for (const group of Object.keys(GROUP_ROWS)) {
    out[group] = groupRows(group).map((row) => {
      const values = { from: row.dataset.from === undefined ? null : Number(row.dataset.from) };
      for (const control of row.querySelectorAll("[name]")) values[control.name] = control.value;
      return values;
    });
  }
  return out;
}

function setFields(fields) {
  for (const [name, value] of Object.entries(fields)) {
    if (GROUP_ROWS[name]) {
      setRows(name, value);
      continue;
    }
    const control = form.elements[name];
    if (control) control.value = value === null ? "" : String(value);
  }
}

function showMode() {
  const hardware = form.elements.use.value === "hardware";
  form.classList.toggle("ft-mode-hardware", hardware);
  for (const control of form.querySelectorAll(".ft-hw input, .ft-hw select, .ft-hw button")) {
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

function showError(message, field, row = null) {
  clearErrors();
  document.getElementById("ft-error-text").textContent = message;
  document.getElementById("ft-error").hidden = false;
  // a field of a group's row: that row's span and control; otherwise the form's own
  const group = Object.keys(GROUP_ROWS).find((g) => GROUP_ROWS[g].some(([, name]) => name === field));
  const scope = group && row !== null && row !== undefined ? groupRows(group)[row] : form;
  const span = field && scope && scope.querySelector(`.ft-err[data-error-for="${field}"]`);
  if (span) {
    span.textContent = message;
    const control = scope === form ? form.elements[field] : scope.querySelector(`[name="${field}"]`);
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
  // what bound/estimate mean and, where a limit names several resources, what 'a = b' and 'a ~ b' mean
  for (const note of env.notes || []) envBox.append(el("p", { class: "ft-note" }, `Note: ${note}.`));
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
    showError(out.stderr.trimEnd(), out.field, out.row);
    setStatus(`compile-config exited with code ${out.code}`);
  } else {
    showResult(out);
    setStatus(`Compiled in ${(out.ms / 1000).toFixed(2)} s.`);
  }
  form.dataset.compiles = String(state.compiles);
  return out;
}

async function gunzip(response) {
  if (!response.ok) throw new Error(`${response.url}: HTTP ${response.status}`);
  const stream = response.body.pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

// Pyodide restored from the build's memory snapshot: the interpreter already started, flashtune imported and its
// data loaded. Pyodide copies the snapshot into the WebAssembly memory without growing it, so the memory is
// grown to the snapshot's size first.
async function fromSnapshot(indexURL) {
  const snapshot = await gunzip(await snapshotDownload);
  mark("snapshot");
  const grown = async (settings) => {
    const module = await createPyodideModule(settings);
    if (!module._emscripten_resize_heap(snapshot.length)) throw new Error("cannot grow memory for the snapshot");
    return module;
  };
  return loadPyodide({ indexURL, _loadSnapshot: snapshot, createPyodideModule: grown });
}

function mark(name) {
  state.marks[name] = Math.round(performance.now() - state.started);
}

async function start() {
  setStatus("Starting Python in the page (Pyodide)…");
  const indexURL = new URL("../pyodide/", import.meta.url).href;
  let py;
  try {
    py = await fromSnapshot(indexURL);
    state.boot = "snapshot";
  } catch (error) {
    // a book built without the snapshot, or a browser that cannot restore it: start Python the long way
    console.warn(`Pyodide snapshot not used (${error}); starting Python without it`);
    py = await loadPyodide({ indexURL });
    state.boot = "plain";
  }
  mark("pyodide");
  setStatus("Loading flashtune and its data…");
  const zip = await bundleDownload;
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
  state.choices = choices;
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
form.addEventListener("click", (event) => {
  const add = event.target.closest(".ft-add");
  if (add) addRow(add.dataset.add);
  const remove = event.target.closest(".ft-remove");
  if (remove) remove.closest(".ft-group-row").remove();
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
  const text = state.web.save_form(JSON.stringify(formData()), JSON.stringify(state.base));
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
