// SPDX-License-Identifier: AGPL-3.0-or-later
// The UI in headless Chromium (Debian's /usr/bin/chromium) driven by
// playwright-core: log in, add a subscriber (a bad K first: the error shows
// at the K field), import a TOML file, see both in the list; then start
// solocore-load (the rest of argv: 2 UEs of SIMS.toml register and hold a PDU
// session each) and see the dashboard show its gNB, the UEs, their sessions
// and a non-zero NGAP message rate; screenshot of the dashboard.
// usage: node browser.js BASE_URL USER PASSWORD SIMS.toml SCREENSHOT.png LOAD_EXE LOAD_ARGS...
"use strict";
const [base, user, password, toml, shot, loadExe, ...loadArgs] = process.argv.slice(2);
const { chromium } = require("playwright-core");
const { spawn } = require("child_process");

function check(cond, what) {
  if (!cond) throw new Error("check failed: " + what);
  console.log("ok: " + what);
}

(async () => {
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  let code = 1, load = null, loadOut = "";
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const failed = [];
    page.on("requestfailed", r => failed.push(r.url()));
    page.on("request", r => { if (!r.url().startsWith(base)) failed.push("outside: " + r.url()); });
    await page.goto(base + "/");
    await page.waitForSelector("#health:not(:empty)");
    // Before login: the list is refused.
    await page.waitForFunction(() => document.getElementById("err-list").textContent !== "");
    check(true, "list refused before login");
    // Wrong password: the error sits at the password field.
    await page.fill("#user", user);
    await page.fill("#password", "not the password");
    await page.click("#login-btn");
    await page.waitForFunction(() => document.getElementById("err-password").textContent !== "");
    check(true, "wrong password shown at its field");
    await page.fill("#user", user);
    await page.fill("#password", password);
    await page.click("#login-btn");
    await page.waitForFunction(u => document.getElementById("who").textContent.startsWith(u), user);
    check(true, "logged in as " + user);
    check(await page.isHidden("#login"), "login form hidden once logged in");
    const cookies = await page.context().cookies();
    const c = cookies.find(x => x.name === "solocore_session");
    check(c && c.httpOnly && c.sameSite === "Strict", "session cookie HttpOnly, SameSite=Strict");
    check(await page.evaluate(() => !document.cookie.includes("solocore_session")), "cookie not readable by scripts");
    // Add: bad K first.
    await page.fill("#add input[name=imsi]", "001010000000101");
    await page.fill("#add input[name=k]", "XYZ");
    await page.fill("#add input[name=opc]", "E8ED289DEBA952E4283B54E88E6183CA");
    await page.click("#add button[type=submit]");
    await page.waitForFunction(() => document.getElementById("err-k").textContent !== "");
    check(true, "bad K shown at the K field");
    await page.fill("#add input[name=k]", "465B5CE8B199B49FAA5F0A2EE238A6BC");
    await page.fill("#add input[name=dnns]", "internet, ims");
    await page.click("#add button[type=submit]");
    await page.waitForSelector("#rows td:text-is('001010000000101')");
    check(true, "added subscriber listed");
    // Import a TOML file.
    await page.setInputFiles("#file", toml);
    await page.click("#import");
    await page.waitForFunction(() => document.getElementById("import-msg").textContent !== "");
    const msg = await page.textContent("#import-msg");
    check(/2/.test(msg), "import answered: " + msg);
    await page.waitForSelector("#rows td:text-is('001010000000202')");
    check(true, "imported subscribers listed");
    check((await page.textContent("#page")).includes("of 3"), "3 subscribers in the list");
    // Dashboard: visible once logged in (solocore run has an AMF), polled every 2 s.
    await page.waitForSelector("#dash:not([hidden])");
    await page.waitForFunction(() => document.getElementById("st-rate").textContent !== "–");
    check(await page.textContent("#st-gnbs") === "0", "dashboard: no gNB before the simulator");
    // A poll happened before the simulator starts, so the next one sees its messages.
    load = spawn(loadExe, loadArgs, { stdio: ["ignore", "pipe", "pipe"] });
    load.stdout.on("data", d => { loadOut += d; });
    load.stderr.on("data", d => { loadOut += d; });
    const loadExit = new Promise(r => load.on("exit", (c, sig) => r(c === null ? sig : c)));
    const cell = (tb, txt) => page.waitForSelector("#" + tb + " td:text-is('" + txt + "')", { timeout: 20000 });
    await cell("gnb-rows", "ransim");
    check(true, "dashboard: the simulator's gNB listed");
    await page.waitForFunction(() => document.querySelector("#gnb-rows tr").textContent.includes("READY"));
    check(true, "dashboard: gNB READY");
    await cell("ue-rows", "imsi-001010000000201");
    await cell("ue-rows", "imsi-001010000000202");
    check(true, "dashboard: both UEs listed");
    await page.waitForFunction(() => document.getElementById("st-sess").textContent === "2" &&
                               document.getElementById("st-reg").textContent === "2" &&
                               document.getElementById("st-gnbs").textContent === "1", null, { timeout: 20000 });
    check(true, "dashboard: 1 gNB, 2 registered UEs, 2 active sessions");
    // SUPI, GUTI, 5GMM, CM, gNB, sessions
    const ueRow = await page.$$eval("#ue-rows tr:first-child td", tds => tds.map(t => t.textContent));
    check(ueRow.length === 6 && /^imsi-00101000000020[12]$/.test(ueRow[0]) && /^00101/.test(ueRow[1]) &&
          ueRow[2] === "REGISTERED" && ueRow[3] === "CM-CONNECTED" && ueRow[4] === "ransim" && ueRow[5] === "1",
          "UE row: " + ueRow.join(" | "));
    await page.waitForFunction(() => parseFloat(document.getElementById("st-rate").textContent) > 0,
                               null, { timeout: 20000 });
    check(true, "dashboard: NGAP rate " + await page.textContent("#st-rate") + " msg/s");
    check(await page.evaluate(() => rates.length >= 2 && rates.some(r => r > 0)), "sparkline has points");
    check(failed.length === 0, "no request failed or left the server (" + failed.join(", ") + ")");
    await page.screenshot({ path: shot, fullPage: true });
    check(true, "screenshot " + shot);
    // Phone width: the dashboard fits (no horizontal scroll of the page).
    await page.setViewportSize({ width: 390, height: 844 });
    const wide = await page.evaluate(() => [...document.querySelectorAll("body *")]
      .filter(e => e.getBoundingClientRect().right > 391).map(e => e.tagName + "#" + e.id + "." + e.className));
    check(await page.evaluate(() => document.documentElement.scrollWidth <= 390 + 1),
          "phone width: no page-wide horizontal scroll (" + wide.slice(0, 5).join(" ") + ")");
    const phone = shot.replace(/\.png$/, "-phone.png");
    await page.screenshot({ path: phone, fullPage: true });
    check(true, "screenshot " + phone);
    load.kill("SIGINT");
    const lc = await loadExit;
    load = null;
    check(lc === 0 && /ue_runs_failed 0/.test(loadOut), "solocore-load ended cleanly (" + lc + ")");
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
