// SPDX-License-Identifier: AGPL-3.0-or-later
// Runs the embedded UI's own script (web/ui.html) in node against a live
// server, with a minimal DOM stand-in for the elements the page declares,
// and drives it like a user: list, add (bad K, good, duplicate), import a
// TOML file (good, bad), search, delete, export.
// usage: node ui_node.js UI.html PORT TOKEN      exit 0 = all checks passed
"use strict";
const fs = require("fs");
const vm = require("vm");

const [html, port, token] = process.argv.slice(2);
const src = fs.readFileSync(html, "utf8");
const script = src.slice(src.indexOf("<script>") + 8, src.indexOf("</script>"));
const base = "http://127.0.0.1:" + port;

class El {
  constructor(tag, id) { this.tag = tag; this.id = id || ""; this.value = ""; this._text = ""; this.children = []; }
  get textContent() { return this._text + this.children.map(c => c.textContent).join("|"); }
  set textContent(v) { this._text = String(v); this.children = []; }
  appendChild(c) { this.children.push(c); return c; }
  click() { return this.onclick && this.onclick(); }
}

const els = {};
for (const m of src.matchAll(/<(\w+)[^>]*\bid="([^"]+)"/g)) els[m[2]] = new El(m[1], m[2]);
const form = els["add"];
form.fields = {};
for (const n of ["imsi", "k", "opc", "slices", "dnns"]) form.fields[n] = new El("input", n);
form.reset = () => { for (const f of Object.values(form.fields)) f.value = ""; };
let lastBlob = null, anchorsClicked = 0;

const document = {
  getElementById: id => els[id] || null,
  querySelectorAll: sel => sel === ".err" ? Object.values(els).filter(e => e.id.startsWith("err-")) : [],
  createElement: tag => { const e = new El(tag); if (tag === "a") e.click = () => { anchorsClicked++; }; return e; },
};
let pending = 0;
const ctx = vm.createContext({
  document, JSON, Math, Number, String, Promise, encodeURIComponent, console,
  sessionStorage: { getItem: () => token, setItem: () => {} },
  confirm: () => true,
  FormData: class { constructor(f) { this.f = f; } get(n) { return this.f.fields[n].value; } },
  Blob: class { constructor(parts) { this.text = parts.join(""); lastBlob = this; } },
  URL: { createObjectURL: () => "blob:x", revokeObjectURL: () => {} },
  fetch: async (path, opts) => { pending++; try { return await fetch(base + path, opts); } finally { pending--; } },
});

const settle = async () => {
  for (let i = 0; i < 3; i++) {
    while (pending) await new Promise(r => setTimeout(r, 2));
    await new Promise(r => setImmediate(r));
  }
};
let failed = 0;
const check = (ok, what) => { if (!ok) { failed++; console.error("FAIL: " + what); } else console.log("ok: " + what); };
const rows = () => els["rows"].children;
const submit = async vals => {
  for (const [k, v] of Object.entries(vals)) form.fields[k].value = v;
  await form.onsubmit({ preventDefault() {}, target: form });
  await settle();
};

(async () => {
  vm.runInContext(script, ctx);
  await settle();
  check(els["health"].textContent.startsWith("ok"), "header shows health: " + els["health"].textContent);
  check(rows().length === 0 && els["page"].textContent === "none", "empty list");

  const K = "465B5CE8B199B49FAA5F0A2EE238A6BC", OPC = "E8ED289DEBA952E4283B54E88E6183CA";
  await submit({ imsi: "001010000000001", k: "XYZ", opc: OPC, slices: "", dnns: "" });
  check(els["err-k"].textContent.includes("32 hex"), "bad K shown next to K: " + els["err-k"].textContent);
  check(els["err-imsi"].textContent === "", "no error next to IMSI");
  check(rows().length === 0, "nothing added");

  await submit({ imsi: "001010000000001", k: K, opc: OPC, slices: "1:010203, 2", dnns: "internet, ims" });
  check(rows().length === 1, "one row after add");
  check(rows()[0].children[0].textContent === "001010000000001", "row shows the IMSI");
  check(rows()[0].children[1].textContent === "1:010203, 2", "row shows slices");
  check(form.fields.k.value === "", "form reset after add");

  await submit({ imsi: "001010000000001", k: K, opc: OPC, slices: "", dnns: "" });
  check(els["err-imsi"].textContent.includes("already exists"), "duplicate shown next to IMSI: " + els["err-imsi"].textContent);

  let toml = "";
  for (let i = 2; i <= 4; i++) toml += `[imsi-00101000000000${i}]\nki = "${K}"\nopc = "${OPC}"\n`;
  els["file"].files = [{ text: async () => toml }];
  await els["import"].onclick();
  await settle();
  check(els["import-msg"].textContent === "3 imported", "import result: " + els["import-msg"].textContent);
  check(rows().length === 4, "four rows after import");
  els["file"].files = [{ text: async () => "[imsi-001010000000009]\nki = \"00\"\n" }];
  await els["import"].onclick();
  await settle();
  check(els["err-body"].textContent.includes("body:2"), "bad file error names its line: " + els["err-body"].textContent);
  check(rows().length === 4, "still four rows");

  els["search"].value = "00101000000000";
  await els["search"].oninput();
  await settle();
  check(rows().length === 4, "prefix search matches all");
  els["search"].value = "001010000000003";
  await els["search"].oninput();
  await settle();
  check(rows().length === 1 && rows()[0].children[0].textContent === "001010000000003", "search finds one");
  await rows()[0].children[5].children[0].onclick();   /* its Delete button */
  await settle();
  check(rows().length === 0, "deleted row gone from the filtered list");
  els["search"].value = "";
  await els["search"].oninput();
  await settle();
  check(rows().length === 3, "three rows left");

  await els["export"].onclick();
  await settle();
  check(anchorsClicked === 1 && lastBlob && lastBlob.text.includes("[imsi-001010000000004]"), "export downloads TOML");
  check(lastBlob && !lastBlob.text.includes(K), "export has no keys");
  process.exit(failed ? 1 : 0);
})().catch(e => { console.error(e); process.exit(1); });
