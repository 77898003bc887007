// SPDX-License-Identifier: AGPL-3.0-or-later
// The UI in headless Chromium (Debian's /usr/bin/chromium) driven by
// playwright-core: log in, add a subscriber (a bad K first: the error shows
// at the K field), import a TOML file, see both in the list, screenshot.
// usage: node browser.js BASE_URL USER PASSWORD SIMS.toml SCREENSHOT.png
"use strict";
const [base, user, password, toml, shot] = process.argv.slice(2);
const { chromium } = require("playwright-core");

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
  let code = 1;
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
    check(failed.length === 0, "no request failed or left the server (" + failed.join(", ") + ")");
    await page.screenshot({ path: shot, fullPage: true });
    check(true, "screenshot " + shot);
    code = 0;
  } catch (e) {
    console.error(e.message || e);
  } finally {
    await browser.close();
  }
  process.exit(code);
})();
