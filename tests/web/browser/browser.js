// SPDX-License-Identifier: AGPL-3.0-or-later
// The UI (web/ui.html) in headless Chromium (Debian's /usr/bin/chromium) driven by playwright-core,
// against `solocore run`, every page:
//  login (wrong password at its field, then the first admin's one-time password);
//  subscribers: add through the form (bad K at the K field, duplicate IMSI -> 409 at the IMSI field),
//    import a TOML file through the import form, edit, search, export, delete;
//  policies: add (bad name at its field), edit, assign to a subscriber, refused delete while in use;
//  users and tokens: add a read-only user (duplicate -> 409 at the name field), change a role,
//    create a token shown once, log in with it in a second browser (operator rights), revoke it
//    (that browser falls back to the login page); audit log rows;
//  solocore-load registers 2 UEs with a PDU session each: the dashboard shows its gNB, the UEs,
//    the session count and a live NGAP rate chart; the sessions, UEs and gNBs pages list them;
//  network settings: a live change ("applied"), a PLMN change ("restart required"), a bad TAC at its field,
//    forget the saved settings; backup download, restore upload (a bad file refused at its form);
//  the UPF tile and chart: with env SOLOCORE_UPF_REAL=1 (browser_test.sh as root with netns) from the
//    real XDP UPF forwarding solocore-load's GTP-U traffic, the sessions page once the traffic ended;
//    otherwise from upf counters injected into the stats answers (no UPF runs then);
//  the phone viewport (390x844): every page without page-wide horizontal scroll;
//  a read-only user: data shown, every write control hidden and disabled;
//  deregistration of a UE from the UEs page.
// Every page check compares what is shown with what the API answers, so a page that renders only
// its title fails. Screenshots: SHOT (dashboard with the UEs and sessions), SHOT-phone.png, and
// SHOT-<page>.png for every page; their paths are printed as "screenshot: PATH".
// usage: node browser.js BASE_URL USER PASSWORD SIMS.toml SHOT.png LOAD_EXE LOAD_ARGS...
"use strict";
const fs = require("fs");
const [base, user, password, toml, shot, loadExe, ...loadArgs] = process.argv.slice(2);
const { chromium } = require("playwright-core");
const { spawn } = require("child_process");

const K = "465B5CE8B199B49FAA5F0A2EE238A6BC", OPC = "E8ED289DEBA952E4283B54E88E6183CA";
const realUpf = process.env.SOLOCORE_UPF_REAL === "1";
const PAGES = ["dash", "subs", "ues", "sessions", "gnbs", "policies", "settings", "users", "audit"];
let checks = 0;
function check(cond, what) {
  if (!cond) throw new Error("check failed: " + what);
  checks++;
  console.log("ok: " + what);
}
const shotOf = name => shot.replace(/\.png$/, "-" + name + ".png");

(async () => {
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  let code = 1, load = null, loadOut = "";
  try {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    const page = await ctx.newPage();
    const failed = [], pageErrors = [];
    page.on("requestfailed", r => failed.push(r.url()));
    page.on("request", r => { if (!r.url().startsWith(base) && !r.url().startsWith("data:") && !r.url().startsWith("blob:"))
      failed.push("outside: " + r.url()); });
    page.on("pageerror", e => pageErrors.push(e.message));
    /* The server's Content-Security-Policy must not have to refuse anything the page does. */
    page.on("console", m => { if (/Content Security Policy/i.test(m.text())) pageErrors.push("CSP: " + m.text()); });
    page.on("dialog", d => d.accept());
    /* The API as the page's own session sees it (same cookie). */
    const apiGet = async path => page.evaluate(async p => {
      const r = await fetch(p);
      return { status: r.status, json: await r.json() };
    }, path);
    const text = sel => page.textContent(sel);
    const waitText = (sel, re, what, timeout) => page.waitForFunction(([s, src]) => {
      const e = document.querySelector(s);
      return e && new RegExp(src).test(e.textContent);
    }, [sel, re.source], { timeout: timeout || 10000 }).then(() => check(true, what), e => {
      throw new Error("check failed: " + what + " (" + sel + " did not match " + re + ")");
    });
    const cell = (tb, txt, timeout) => page.waitForSelector(tb + " td:text-is('" + txt + "')", { timeout: timeout || 10000 });
    const rowOf = (tb, txt) => page.locator(tb + " tr", { has: page.locator("td:text-is('" + txt + "')") });
    const rowCells = async (tb, txt) => rowOf(tb, txt).locator("td").allTextContents();
    const nav = async name => {
      await page.click("nav a[href='#" + name + "']");
      await page.waitForSelector("#p-" + name + ":not([hidden])");
    };
    const submit = async (form, status) => {
      const [resp] = await Promise.all([
        page.waitForResponse(r => r.request().method() !== "GET" && r.url().includes("/api/v1/")),
        page.click(form + " button[type=submit]"),
      ]);
      check(resp.status() === status, form + " answered " + resp.status() + " (want " + status + ")");
      return resp;
    };
    /* Has anything been drawn on a canvas? */
    const drawn = sel => page.$eval(sel, c => c.getContext("2d").getImageData(0, 0, c.width, c.height).data
                                           .some((v, i) => i % 4 === 3 && v > 0));
    const fieldErr = (form, field) => form + " [data-err='" + field + "']";

    /* the second SIM of the file gets a policy made through the UI below */
      fs.writeFileSync(toml, fs.readFileSync(toml, "utf8").replace(/(\[imsi-001010000000202\]\n)/, '$1policy = "silver"\n'));

    // ---- login ----
    await page.goto(base + "/");
    await page.waitForSelector("#p-login:not([hidden])");
    await waitText("#health", /^ok · v\d/, "header shows health and version");
    check(await page.isHidden("#nav"), "no navigation before login");
    await page.fill("#login-form [name=user]", user);
    await page.fill("#login-form [name=password]", "not the password");
    await submit("#login-form", 401);
    await waitText(fieldErr("#login-form", "password"), /./, "wrong password shown at the password field");
    await page.fill("#login-form [name=password]", password);
    await submit("#login-form", 200);
    await waitText("#who", new RegExp("^" + user + " \\(admin\\)"), "logged in as " + user + " (admin)");
    await page.waitForSelector("#p-dash:not([hidden])");
    check(await page.isHidden("#p-login"), "login page hidden once logged in");
    const c = (await ctx.cookies()).find(x => x.name === "solocore_session");
    check(c && c.httpOnly && c.sameSite === "Strict", "session cookie HttpOnly, SameSite=Strict");
    check(await page.evaluate(() => !document.cookie.includes("solocore_session")), "cookie not readable by scripts");

    // ---- policies (before subscribers, so the subscriber form can pick one) ----
    await nav("policies");
    await page.fill("#pol-form [name=name]", "bad name!");
    await submit("#pol-form", 400);
    await waitText(fieldErr("#pol-form", "name"), /./, "bad policy name shown at the name field");
    await page.fill("#pol-form [name=name]", "gold");
    await page.fill("#pol-form [name=dnns]", "internet");
    await page.fill("#pol-form [name=slices]", "1");
    await page.fill("#pol-form [name=ambr_ul]", "100M");
    await page.fill("#pol-form [name=ambr_dl]", "200M");
    await page.fill("#pol-form [name=default_5qi]", "7");
    await page.fill("#pol-form [name=arp]", "5");
    await submit("#pol-form", 201);
    await cell("#pol-rows", "gold");
    let pr = await rowCells("#pol-rows", "gold");
    check(pr[1] === "internet" && pr[2] === "1" && pr[3] === "100M / 200M" && pr[4] === "7" && pr[5] === "5" && pr[6] === "0",
          "policy row: " + pr.join(" | "));
    await page.fill("#pol-form [name=name]", "gold");
    await submit("#pol-form", 409);
    await waitText(fieldErr("#pol-form", "name"), /./, "duplicate policy name shown at the name field");
    // silver: network default DNNs and slices (the simulator's UE with it must still get its session).
    await page.fill("#pol-form [name=name]", "silver");
    await page.fill("#pol-form [name=dnns]", "");
    await page.fill("#pol-form [name=slices]", "");
    await page.fill("#pol-form [name=ambr_dl]", "50M");
    await submit("#pol-form", 201);
    await cell("#pol-rows", "silver");
    await rowOf("#pol-rows", "silver").locator("button:text-is('Edit')").click();
    check(await page.inputValue("#pol-form [name=ambr_dl]") === "50000000", "edit fills the policy form");
    await page.fill("#pol-form [name=ambr_dl]", "60M");
    await submit("#pol-form", 200);
    await page.waitForFunction(() => [...document.querySelectorAll("#pol-rows tr")].some(r => r.textContent.includes("silver") &&
                               r.textContent.includes("60M")));
    check(true, "policy edited (AMBR DL 60M shown)");
    const apiPol = await apiGet("/api/v1/policies");
    check(apiPol.status === 200 && apiPol.json.items.length === 2 &&
          (await page.$$("#pol-rows tr")).length === apiPol.json.items.length, "policies page shows the API's 2 policies");

    // ---- subscribers ----
    await nav("subs");
    await page.fill("#sub-form [name=imsi]", "001010000000101");
    await page.fill("#sub-form [name=k]", "XYZ");
    await page.fill("#sub-form [name=opc]", OPC);
    await submit("#sub-form", 400);
    await waitText(fieldErr("#sub-form", "k"), /32 hex/, "bad K shown at the K field");
    check(await text(fieldErr("#sub-form", "imsi")) === "", "no error at the IMSI field");
    await page.fill("#sub-form [name=k]", K);
    await page.fill("#sub-form [name=dnns]", "internet, ims");
    await page.fill("#sub-form [name=ambr_dl]", "1G");
    await page.selectOption("#sub-form [name=policy]", "gold");
    await submit("#sub-form", 201);
    await cell("#sub-rows", "001010000000101");
    let sr = await rowCells("#sub-rows", "001010000000101");
    check(sr[1] === "gold" && sr[3] === "internet, ims" && sr[4] === "100M / 1G",
          "added subscriber row (UL AMBR from its policy): " + sr.join(" | "));
    check(await page.inputValue("#sub-form [name=k]") === "", "form emptied after add");
    // Duplicate IMSI: 409 beside the IMSI field.
    await page.fill("#sub-form [name=imsi]", "001010000000101");
    await page.fill("#sub-form [name=k]", K);
    await page.fill("#sub-form [name=opc]", OPC);
    await submit("#sub-form", 409);
    await waitText(fieldErr("#sub-form", "imsi"), /already exists/, "duplicate IMSI (409) shown at the IMSI field");
    check(await text(fieldErr("#sub-form", "_")) === "", "and not in the form's general slot");
    await page.fill("#sub-form [name=imsi]", "");
    // Unknown policy name cannot be picked; the policy list is the API's.
    const opts = await page.$$eval("#sub-form [name=policy] option", o => o.map(x => x.value));
    check(JSON.stringify(opts) === JSON.stringify(["", "gold", "silver"]), "policy selector lists the API's policies");
    // Import a TOML file through the form.
    await page.setInputFiles("#imp-form [name=file]", toml);
    await submit("#imp-form", 200);
    await waitText("#imp-msg", /^2 imported$/, "import answered 2 imported");
    await cell("#sub-rows", "001010000000201");
    await cell("#sub-rows", "001010000000202");
    check((await rowCells("#sub-rows", "001010000000202"))[1] === "silver", "imported SIM has its policy from the file");
    await waitText("#sub-page", /of 3$/, "3 subscribers in the list");
    // A bad file imports nothing and names its line.
    const bad = toml.replace(/\.toml$/, "-bad.toml");
    fs.writeFileSync(bad, '[imsi-001010000000301]\nki = "' + K + '"\nopc = "' + OPC + '"\n\n[imsi-001010000000302]\nki = "00"\n');
    await page.setInputFiles("#imp-form [name=file]", bad);
    await submit("#imp-form", 400);
    await waitText(fieldErr("#imp-form", "body"), /./, "bad TOML file error shown at the import form");
    await waitText("#sub-page", /of 3$/, "still 3 subscribers (all or nothing)");
    // Edit: policy and DNNs.
    await rowOf("#sub-rows", "001010000000101").locator("button:text-is('Edit')").click();
    check(await page.inputValue("#sub-form [name=imsi]") === "001010000000101" &&
          await page.getAttribute("#sub-form [name=imsi]", "readonly") !== null, "edit fills the form, IMSI read-only");
    await page.fill("#sub-form [name=dnns]", "internet");
    await page.selectOption("#sub-form [name=policy]", "");
    await submit("#sub-form", 200);
    await page.waitForFunction(() => [...document.querySelectorAll("#sub-rows tr")].some(r =>
      r.firstChild.textContent === "001010000000101" && r.children[1].textContent === "–" && r.children[3].textContent === "internet"));
    check(true, "edited subscriber: no policy, DNNs internet");
    const one = await apiGet("/api/v1/subscribers/001010000000101");
    check(one.json.policy === null && JSON.stringify(one.json.dnns) === '["internet"]' && one.json.ambr_dl === 1000000000,
          "the API has the edit (policy null, dnns [internet], ambr_dl 1G kept)");
    // Search.
    await page.fill("#sub-search", "0010100000002");
    await page.waitForFunction(() => document.querySelectorAll("#sub-rows tr").length === 2 &&
                               document.getElementById("sub-page").textContent.endsWith("of 2"));
    check(true, "IMSI prefix search: 2 rows");
    await page.fill("#sub-search", "");
    await waitText("#sub-page", /of 3$/, "search cleared");
    // Export.
    const [dl] = await Promise.all([page.waitForEvent("download"), page.click("#sub-export")]);
    const exported = fs.readFileSync(await dl.path(), "utf8");
    check(dl.suggestedFilename() === "sims.toml" && exported.includes("[imsi-001010000000201]") && !exported.includes(K),
          "export downloads sims.toml with the SIMs and no key");
    // Delete (a subscriber added for it).
    await page.fill("#sub-form [name=imsi]", "001010000000199");
    await page.fill("#sub-form [name=k]", K);
    await page.fill("#sub-form [name=opc]", OPC);
    await submit("#sub-form", 201);
    await cell("#sub-rows", "001010000000199");
    await rowOf("#sub-rows", "001010000000199").locator("button:text-is('Delete')").click();
    await waitText("#sub-page", /of 3$/, "deleted subscriber gone");
    check(await apiGet("/api/v1/subscribers/001010000000199").then(r => r.status) === 404, "the API agrees (404)");
    const apiSubs = await apiGet("/api/v1/subscribers");
    check(apiSubs.json.total === 3 && (await page.$$("#sub-rows tr")).length === 3, "subscribers page shows the API's 3");

    // Policy in use: delete refused with the API's message; the count column follows the API.
    await nav("policies");
    await page.waitForFunction(() => [...document.querySelectorAll("#pol-rows tr")].some(r =>
      r.firstChild.textContent === "silver" && r.children[6].textContent === "1"));
    check(true, "policy silver used by 1 subscriber");
    await rowOf("#pol-rows", "silver").locator("button:text-is('Delete')").click();
    await waitText("#err-policies", /./, "delete of a policy in use refused, message shown");
    await cell("#pol-rows", "silver");

    // ---- users and tokens ----
    await nav("users");
    await cell("#user-rows", user);
    await page.fill("#user-form [name=name]", "viewer");
    await page.selectOption("#user-form [name=role]", "operator");
    await page.fill("#user-form [name=password]", "short");
    await submit("#user-form", 400);
    await waitText(fieldErr("#user-form", "password"), /./, "short password shown at the password field");
    await page.fill("#user-form [name=password]", "viewer-pass-1");
    await submit("#user-form", 201);
    await cell("#user-rows", "viewer");
    await page.fill("#user-form [name=name]", "viewer");
    await page.fill("#user-form [name=password]", "viewer-pass-1");
    await submit("#user-form", 409);
    await waitText(fieldErr("#user-form", "name"), /exists/, "duplicate user (409) shown at the name field");
    await rowOf("#user-rows", "viewer").locator("select").selectOption("read");
    await waitText("#user-msg", /viewer: role changed/, "role changed to read");
    check((await apiGet("/api/v1/users")).json.items.find(u => u.name === "viewer").role === "read", "the API has role read");
    await page.fill("#tok-form [name=name]", "ci");
    await page.selectOption("#tok-form [name=role]", "operator");
    await submit("#tok-form", 201);
    await waitText("#tok-value", /^sct_[0-9a-f]+$/, "new token shown once");
    await cell("#tok-rows", "ci");
    const tokId = (await apiGet("/api/v1/tokens")).json.items.find(t => t.name === "ci").id;
    // The token in another browser (no cookie): the login page's token form, operator rights.
    const tctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const tpage = await tctx.newPage();
    tpage.on("pageerror", e => pageErrors.push("token page: " + e.message));
    await tpage.goto(base + "/#subs");
    await tpage.fill("#token-form [name=token]", "not-a-token");
    await tpage.click("#token-form button[type=submit]");
    await tpage.waitForFunction(() => document.querySelector("#token-form [data-err=Authorization]").textContent !== "");
    check(true, "a bad token refused at the token field");
    await tpage.fill("#token-form [name=token]", await text("#tok-value"));
    await tpage.click("#token-form button[type=submit]");
    await tpage.waitForFunction(() => /\(operator\)$/.test(document.getElementById("who").textContent));
    await tpage.waitForSelector("#sub-rows td:text-is('001010000000101')");
    check(await tpage.isVisible("#sub-form") && await tpage.isHidden("nav a[href='#users']"),
          "token login: operator sees subscribers with the add form, no users page");
    await rowOf("#tok-rows", "ci").locator("button:text-is('Revoke')").click();
    await page.waitForSelector("#tok-rows td:text-is('ci')", { state: "detached" });
    check(!(await apiGet("/api/v1/tokens")).json.items.some(t => t.id === tokId), "token revoked");
    await tpage.click("nav a[href='#policies']");   /* the next request answers 401: back to the login page */
    await tpage.waitForSelector("#p-login:not([hidden])");
    check(await tpage.isHidden("#nav"), "revoked token: the other browser is back at the login page");
    await tctx.close();

    // ---- audit ----
    await nav("audit");
    await cell("#aud-rows", "POST /api/v1/subscribers");
    const aud = await apiGet("/api/v1/audit?limit=50");
    const audRows = await page.$$eval("#aud-rows tr", r => r.map(x => [...x.children].map(t => t.textContent)));
    check(aud.json.items.length === audRows.length && audRows[0][2] === aud.json.items[0].action &&
          audRows.some(r => r[2] === "DELETE /api/v1/tokens/" + tokId),
          "audit page shows the API's " + audRows.length + " newest entries (token revocation among them)");

    // ---- the network: solocore-load registers 2 UEs with a PDU session each ----
    await nav("dash");
    await page.waitForFunction(() => document.getElementById("st-rate").textContent !== "–");
    check(await text("#st-gnbs") === "0", "dashboard: no gNB before the simulator");
    load = spawn(loadExe, loadArgs, { stdio: ["ignore", "pipe", "pipe"] });
    load.stdout.on("data", d => { loadOut += d; });
    load.stderr.on("data", d => { loadOut += d; });
    const loadExit = new Promise(r => load.on("exit", (c, sig) => r(c === null ? sig : c)));
    await cell("#dash-gnbs", "ransim", 20000);
    await page.waitForFunction(() => document.querySelector("#dash-gnbs tr").textContent.includes("READY"));
    check(true, "dashboard: the simulator's gNB listed, READY");
    await cell("#dash-ues", "imsi-001010000000201", 20000);
    await cell("#dash-ues", "imsi-001010000000202", 20000);
    check(true, "dashboard: both UEs listed");
    await page.waitForFunction(() => document.getElementById("st-sess").textContent === "2" &&
                               document.getElementById("st-reg").textContent === "2" &&
                               document.getElementById("st-conn").textContent === "2" &&
                               document.getElementById("st-gnbs").textContent === "1", null, { timeout: 20000 });
    check(true, "dashboard: 1 gNB, 2 registered, 2 connected UEs, 2 PDU sessions");
    const ueRow = await rowCells("#dash-ues", "imsi-001010000000201");
    check(ueRow[1] === "REGISTERED" && ueRow[2] === "CM-CONNECTED" && ueRow[3] === "ransim" && ueRow[4] === "1",
          "dashboard UE row: " + ueRow.join(" | "));
    for (const u of ["imsi-001010000000201", "imsi-001010000000202"]) await cell("#dash-ses", u, 10000);
    const sr1 = await rowCells("#dash-ses", "imsi-001010000000201");
    check(sr1[1] === "1" && /^\d+\.\d+\.\d+\.\d+$/.test(sr1[2]) && sr1[3] === "internet" && sr1[5] === "ACTIVE",
          "dashboard session row: " + sr1.join(" | "));
    await page.waitForFunction(() => parseFloat(document.getElementById("st-rate").textContent) > 0, null, { timeout: 20000 });
    check(true, "dashboard: NGAP rate " + await text("#st-rate") + " msg/s");
    check(await page.evaluate(() => solocoreUI.R.ngap.pts.length >= 2 && solocoreUI.R.ngap.pts.some(r => r > 0)),
          "NGAP chart has points");
    check(await drawn("#ch-ngap"), "NGAP chart drawn on its canvas");
    const st = await apiGet("/api/v1/stats");
    const upfTile = await text("#st-upf");
    check(st.json.sessions === 2 && "upf" in st.json, "stats: 2 sessions, upf " + JSON.stringify(st.json.upf));
    check(st.json.upf ? /^\d/.test(upfTile) : upfTile === "–" && /no UPF/.test(await text("#upf-note")),
          "UPF tile " + upfTile + (st.json.upf ? " from the UPF counters" : " (no UPF in this run)"));
    if (realUpf) {
      // solocore-load's G-PDUs through the real UPF: a rate on the tile and the chart, no injection
      await page.waitForFunction(() => parseFloat(document.getElementById("st-upf").textContent) > 0 &&
                                 solocoreUI.R.upf.pts.some(r => r > 0), null, { timeout: 30000 });
      const u = (await apiGet("/api/v1/stats")).json.upf;
      check(u.ul_packets > 0 && u.dl_packets > 0, "REAL UPF: tile " + await text("#st-upf") + " packets/s, counters " +
            JSON.stringify(u));
      check(await drawn("#ch-upf"), "REAL UPF: chart drawn on its canvas from the UPF's counters");
    }
    await page.waitForTimeout(4000);   /* two more polls: some chart history in the screenshot */
    await page.screenshot({ path: shot, fullPage: true });
    console.log("screenshot: " + shot);

    if (realUpf) {
      // --traffic-secs ends the uplink: wait until the counters hold still, so that the page and
      // the API show the same ones
      let prev = "", cur = "";
      for (let i = 0; i < 60; i++) {
        const u = (await apiGet("/api/v1/stats")).json.upf;
        cur = u.ul_packets + "/" + u.dl_packets;
        if (cur === prev) break;
        prev = cur;
        await page.waitForTimeout(1500);
      }
      check(cur === prev, "REAL UPF: traffic over, counters " + cur);
    }
    // Sessions page: the API's sessions, with UE IP, DNN, slice, TEIDs, counters.
    await nav("sessions");
    await cell("#ses-rows", "imsi-001010000000201", 10000);
    await cell("#ses-rows", "imsi-001010000000202", 10000);
    const apiSes = await apiGet("/api/v1/sessions?limit=100");
    check(apiSes.status === 200 && apiSes.json.items.length === 2, "API: 2 sessions");
    for (const s of apiSes.json.items) {
      const r = await rowCells("#ses-rows", s.supi);
      check(r[1] === String(s.psi) && r[2] === s.ue_ip && r[3] === s.dnn && r[6] === String(s.ul_teid) && r[7] === String(s.dl_teid) &&
            r[10] === String(s["5qi"]) && r[11].startsWith(s.ul_packets + " / "), "sessions page row: " + r.join(" | "));
      check(/^\d+\.\d+\.\d+\.\d+$/.test(r[2]), "UE IP " + r[2]);
    }
    const eff = (await apiGet("/api/v1/subscribers/001010000000202")).json.effective;
    const r = await rowCells("#ses-rows", "imsi-001010000000202");
    check(eff.ambr_dl === 60e6 && r[9] === (eff.ambr_ul === 1e9 ? "1G" : String(eff.ambr_ul)) + " / 60M",
          "session of the SIM with policy silver: AMBR " + r[9]);
    // UEs page and a UE's sessions.
    await nav("ues");
    await cell("#ue-rows", "imsi-001010000000202");
    const apiUes = await apiGet("/api/v1/ues?limit=100");
    check((await page.$$("#ue-rows tr")).length === apiUes.json.items.length, "UEs page shows the API's " + apiUes.json.items.length);
    const ur = await rowCells("#ue-rows", "imsi-001010000000202");
    check(ur[1] === apiUes.json.items.find(u => u.supi === "imsi-001010000000202").guti && ur[2] === "REGISTERED",
          "UE row with GUTI and state: " + ur.slice(0, 5).join(" | "));
    await rowOf("#ue-rows", "imsi-001010000000202").locator("button:text-is('Details')").click();
    await page.waitForSelector("#ue-detail:not([hidden])");
    const ses2 = apiSes.json.items.find(s => s.supi === "imsi-001010000000202");
    await page.waitForSelector("#ue-sess td:text-is('" + ses2.ue_ip + "')");
    check(true, "UE details list its session (" + ses2.ue_ip + ")");
    await waitText("#ue-dl", /REGISTERED/, "UE details show the state");
    // gNBs page.
    await nav("gnbs");
    await cell("#gnb-rows", "ransim");
    const g = (await apiGet("/api/v1/gnbs")).json.items[0];
    const gr = await rowCells("#gnb-rows", "ransim");
    check(gr[3] === g.plmn && gr[4] === g.tacs.join(", ") && gr[6] === "READY" && gr[7] === "2", "gNBs page row: " + gr.join(" | "));

    // ---- screenshots of every page (desktop), the UEs still registered ----
    for (const p of PAGES) {
      await nav(p);
      await page.waitForTimeout(200);
      await page.screenshot({ path: shotOf(p), fullPage: true });
    }
    console.log("screenshot: " + shotOf("<page>") + " for " + PAGES.join(", ") + " (and -<page>-phone.png)");

    // ---- every page on a phone (390x844) as the admin ----
    await page.setViewportSize({ width: 390, height: 844 });
    for (const p of PAGES) {
      await nav(p);
      await page.waitForTimeout(300);
      const wide = await page.evaluate(() => [...document.querySelectorAll("body *")]
        .filter(e => e.getBoundingClientRect().right > 391 && !e.closest(".scroll")).map(e => e.tagName + "#" + e.id + "." + e.className));
      check(await page.evaluate(() => document.documentElement.scrollWidth <= 391),
            "phone 390x844 #" + p + ": no page-wide horizontal scroll (" + wide.slice(0, 5).join(" ") + ")");
      await page.screenshot({ path: shotOf(p + "-phone"), fullPage: false });
    }
    await nav("dash");
    await page.waitForTimeout(2500);
    await page.screenshot({ path: shot.replace(/\.png$/, "-phone.png"), fullPage: true });
    console.log("screenshot: " + shot.replace(/\.png$/, "-phone.png"));
    await page.setViewportSize({ width: 1280, height: 900 });

    // ---- network settings ----
    await nav("settings");
    const set0 = await apiGet("/api/v1/settings");
    check(set0.status === 200, "settings from the API");
    await waitText("#set-plmn", new RegExp("^" + set0.json.plmn.mcc + "-" + set0.json.plmn.mnc + "$"), "settings page shows the PLMN");
    check(await text("#set-dnns") !== "" && (await page.$$("#set-dnns tr")).length === set0.json.dnns.length,
          "settings page lists the API's " + set0.json.dnns.length + " DNN(s)");
    await page.fill("#set-form [name=tacs]", "1, x");
    await submit("#set-form", 400);
    await waitText(fieldErr("#set-form", "tacs"), /./, "bad TAC shown at the TACs field");
    const tacs = set0.json.tacs.concat([set0.json.tacs[set0.json.tacs.length - 1] + 1]);
    await page.fill("#set-form [name=tacs]", tacs.join(", "));
    await submit("#set-form", 200);
    await waitText("#set-msg", /applied: tacs/, "TACs change shown as applied");
    await waitText("#set-tacs", new RegExp("^" + tacs.join(", ") + "$"), "page shows the new TACs");
    await page.fill("#set-form [name=mnc]", set0.json.plmn.mnc === "02" ? "03" : "02");
    await submit("#set-form", 200);
    await waitText("#set-msg", /restart required: plmn/, "PLMN change shown as restart required");
    await waitText("#set-waiting", /plmn/, "PLMN listed as waiting for a restart");
    await waitText("#set-saved", /tacs.*plmn|plmn.*tacs/, "PLMN and TACs listed as saved");
    await page.screenshot({ path: shotOf("settings"), fullPage: true });
    await page.click("#set-forget");
    await waitText("#set-msg", /forgotten: .*plmn/, "saved settings forgotten (DELETE)");
    await waitText("#set-saved", /^nothing$/, "nothing saved any more");
    // Backup download and a restore upload (staged for the next start).
    const [bk] = await Promise.all([page.waitForEvent("download"), page.click("#db-backup")]);
    const bkPath = await bk.path();
    check(fs.readFileSync(bkPath).subarray(0, 15).toString() === "SQLite format 3", "backup downloads an SQLite file");
    await waitText("#db-msg", /^backup: /, "backup size shown");
    await page.setInputFiles("#db-form [name=file]", { name: "bad.db", mimeType: "application/octet-stream",
                                                       buffer: Buffer.from("not a database") });
    await submit("#db-form", 400);
    await waitText(fieldErr("#db-form", "body"), /backup/, "a file that is no backup refused at the restore form");
    await page.setInputFiles("#db-form [name=file]", bkPath);
    await submit("#db-form", 202);
    await waitText("#db-msg", /next start/, "restore staged for the next start");

    // ---- deregistration from the UEs page ----
    await nav("ues");
    await rowOf("#ue-rows", "imsi-001010000000201").locator("button:text-is('Deregister')").click();
    await waitText("#ue-msg", /imsi-001010000000201 deregistering/, "deregister answered 202");
    await page.waitForFunction(() => ![...document.querySelectorAll("#ue-rows tr")].some(r =>
      r.firstChild.textContent === "imsi-001010000000201" && r.children[2].textContent === "REGISTERED"), null, { timeout: 20000 });
    check(true, "the UE is no longer REGISTERED");
    load.kill("SIGINT");
    const lc = await loadExit;
    load = null;
    check(lc === 0, "solocore-load ended (" + lc + ")");

    // ---- a read-only user ----
    await page.click("#logout");
    await page.waitForSelector("#p-login:not([hidden])");
    await page.fill("#login-form [name=user]", "viewer");
    await page.fill("#login-form [name=password]", "viewer-pass-1");
    await submit("#login-form", 200);
    await waitText("#who", /^viewer \(read\)/, "logged in as viewer (read)");
    check(await page.isHidden("nav a[href='#users']") && await page.isHidden("nav a[href='#audit']"),
          "read-only: no users and audit pages in the navigation");
    await page.goto(base + "/#users");
    await page.waitForSelector("#p-dash:not([hidden])");
    check(await page.isHidden("#p-users"), "read-only: #users typed in the address bar shows the dashboard");
    await nav("subs");
    await cell("#sub-rows", "001010000000201");
    check(await page.isHidden("#sub-form") && await page.isHidden("#imp-form"), "read-only: add and import forms hidden");
    check(await page.isDisabled("#sub-save") && await page.isDisabled("#imp-form button[type=submit]"),
          "read-only: their buttons disabled");
    const visibleWrites = await page.$$eval("#sub-rows button", b => b.filter(x => x.offsetParent !== null).length);
    check(visibleWrites === 0, "read-only: no Edit/Delete button visible in the subscriber rows");
    check(await page.isVisible("#sub-export"), "read-only: export still offered");
    await nav("policies");
    await cell("#pol-rows", "gold");
    check(await page.isHidden("#pol-form") &&
          await page.$$eval("#pol-rows button", b => b.filter(x => x.offsetParent !== null).length) === 0,
          "read-only: policy form and row buttons hidden");
    await nav("settings");
    await page.waitForSelector("#set-plmn");
    check(await page.isHidden("#set-form") && await page.isDisabled("#set-form button[type=submit]"),
          "read-only: settings shown, change form hidden and disabled");
    await nav("ues");
    await cell("#ue-rows", "imsi-001010000000202");
    check(await page.$$eval("#ue-rows button", b => b.filter(x => x.offsetParent !== null).map(x => x.textContent))
            .then(t => t.every(x => x === "Details")), "read-only: no Deregister button");
    await page.screenshot({ path: shotOf("readonly"), fullPage: true });

    // The UPF tile and chart without a UPF (browser_test.sh not root, no netns): the stats answers
    // get an "upf" object added here, counters growing 1000 packets per poll.
    let polls = 0;
    if (!realUpf) await page.route("**/api/v1/stats", async route => {
      const resp = await route.fetch(), j = await resp.json();
      polls++;
      j.upf = { ul_packets: polls * 600, ul_bytes: polls * 60000, dl_packets: polls * 400, dl_bytes: polls * 400000, drops: {} };
      await route.fulfill({ response: resp, json: j });
    });
    if (!realUpf) {
      await nav("dash");
      await page.waitForFunction(() => solocoreUI.R.upf.pts.length >= 2, null, { timeout: 15000 });
      await page.waitForTimeout(100);
      const upf = await text("#st-upf");
      check(Number(upf) > 0 && await text("#upf-note") === "", "UPF tile " + upf + " packets/s from INJECTED upf counters");
      check(await drawn("#ch-upf"), "UPF chart drawn on its canvas");
      await page.unroute("**/api/v1/stats");
    }
    console.log(realUpf ? "UPF chart: REAL counters (XDP UPF, GTP-U traffic)" : "UPF chart: INJECTED counters");

    check(failed.length === 0, "no request failed or left the server (" + failed.join(", ") + ")");
    check(pageErrors.length === 0, "no script error or CSP refusal in the page (" + pageErrors.join("; ") + ")");
    console.log(checks + " checks passed");
    code = 0;
  } catch (e) {
    console.error(e.message || e);
    if (loadOut) console.error("solocore-load:\n" + loadOut);
  } finally {
    if (load) load.kill("SIGKILL");
    await browser.close();
  }
  process.exit(code);
})();
