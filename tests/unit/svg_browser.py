#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Opens a skyprof flame graph in headless Chromium and checks it works.

usage: svg_browser.py FILE.svg SCREENSHOT.png SEARCH ZOOM

Loads the SVG over the DevTools protocol (python3-websocket), then checks:
no JavaScript exception or console error; frames render with a width;
Ctrl-F opens the search prompt, and answering SEARCH highlights a frame and
shows "Matched: X%"; clicking the ZOOM frame widens its children and hides
unrelated frames; Reset Zoom restores. Saves a screenshot of the searched
graph. Prints one line per failed check; exit status 0 only if all pass.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

import websocket

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--hide-scrollbars", "--remote-debugging-port=0"]


class Page:
    def __init__(self, ws):
        self.ws, self.next_id, self.events = ws, 0, []

    def call(self, method, **params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            self.events.append(msg)

    def wait_event(self, name, timeout=20):
        end = time.time() + timeout
        while time.time() < end:
            for i, e in enumerate(self.events):
                if e.get("method") == name:
                    return self.events.pop(i)
            self.ws.settimeout(max(0.1, end - time.time()))
            try:
                self.events.append(json.loads(self.ws.recv()))
            except websocket.WebSocketTimeoutException:
                break
        raise RuntimeError(f"timed out waiting for {name}")

    def js(self, expr):
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True,
                      awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expr}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def send(self, method, **params):
        """Sends without waiting: the reply to a key press that opens a
        prompt only comes once the prompt is answered."""
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))

    def key(self, key, code, vk, modifiers=0):
        for t in ("rawKeyDown", "keyUp"):
            self.send("Input.dispatchKeyEvent", type=t, key=key, code=code,
                      windowsVirtualKeyCode=vk, modifiers=modifiers)


def main():
    svg, shot, search, zoom = sys.argv[1:5]
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        print("chromium not installed")
        return 2
    profile = tempfile.mkdtemp(prefix="skyprof-chromium-")
    proc = subprocess.Popen([chromium] + FLAGS + [f"--user-data-dir={profile}", "about:blank"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    failures = []
    try:
        port_file = os.path.join(profile, "DevToolsActivePort")
        for _ in range(300):
            if os.path.exists(port_file) and open(port_file).read().count("\n") >= 1:
                break
            time.sleep(0.1)
        port = int(open(port_file).read().split("\n")[0])
        targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list"))
        page_ws = next(t["webSocketDebuggerUrl"] for t in targets if t["type"] == "page")
        p = Page(websocket.create_connection(page_ws, timeout=20))
        for domain in ("Runtime", "Page", "Log"):
            p.call(f"{domain}.enable")
        p.call("Emulation.setDeviceMetricsOverride", width=1200, height=600,
               deviceScaleFactor=1, mobile=False)
        p.call("Page.navigate", url="file://" + os.path.abspath(svg))
        p.wait_event("Page.loadEventFired")

        n = p.js("document.querySelectorAll('g.f').length")
        wide = p.js("Array.from(document.querySelectorAll('g.f rect'))"
                    ".filter(r => r.getBBox().width > 1).length")
        if not n or wide < 3:
            failures.append(f"frames do not render: {n} frames, {wide} wider than 1px")
        if p.js("typeof fg") != "object":
            failures.append("the script did not run")

        # Ctrl-F opens the prompt; answering it searches.
        p.key("f", "KeyF", 70, modifiers=2)
        dialog = p.wait_event("Page.javascriptDialogOpening")
        if dialog["params"]["type"] != "prompt":
            failures.append(f"Ctrl-F opened a {dialog['params']['type']}, not a prompt")
        p.call("Page.handleJavaScriptDialog", accept=True, promptText=search)
        time.sleep(0.2)
        hits = p.js("Array.from(document.querySelectorAll('g.f'))"
                    ".filter(g => g.querySelector('rect').getAttribute('fill') =="
                    " 'rgb(230,0,230)').map(g => g.getAttribute('data-n'))")
        matched = p.js("document.getElementById('matched').textContent")
        if not hits or not all(search in h for h in hits):
            failures.append(f"search {search!r} highlighted {hits}")
        if not matched.startswith("Matched: ") or matched == "Matched: 0.0%":
            failures.append(f"matched text is {matched!r}")
        png = p.call("Page.captureScreenshot", format="png")["data"]
        import base64
        with open(shot, "wb") as f:
            f.write(base64.b64decode(png))

        # Click to zoom: children get wider, unrelated frames disappear.
        sel = f"Array.from(document.querySelectorAll('g.f')).find(g => g.getAttribute('data-n') == {json.dumps(zoom)})"
        before = p.js(f"(() => {{ const g = {sel}; return +g.querySelector('rect').getAttribute('width'); }})()")
        p.js(f"{sel}.dispatchEvent(new MouseEvent('click', {{bubbles: true}}))")
        after = p.js(f"(() => {{ const g = {sel}; return +g.querySelector('rect').getAttribute('width'); }})()")
        hidden = p.js("Array.from(document.querySelectorAll('g.f')).filter(g => g.style.display == 'none').length")
        if not after > before or after < 1100 or not hidden:
            failures.append(f"zoom on {zoom}: width {before} -> {after}, {hidden} hidden")
        p.js("document.getElementById('reset').dispatchEvent(new MouseEvent('click'))")
        back = p.js(f"(() => {{ const g = {sel}; return +g.querySelector('rect').getAttribute('width'); }})()")
        if abs(back - before) > 0.5:
            failures.append(f"reset zoom: width {back}, was {before}")

        # Hover: the details line names the frame with samples, or with a time
        # off-CPU (the unit is ns: shown as ns, us, ms or s).
        leaf = f"Array.from(document.querySelectorAll('g.f')).find(g => g.getAttribute('data-n') == {json.dumps(search)})"
        p.js(f"{leaf}.dispatchEvent(new MouseEvent('mouseover'))")
        details = p.js("document.getElementById('details').textContent")
        unit = p.js("document.documentElement.getAttribute('data-unit')")
        value = r"[\d.]+ (ns|us|ms|s)" if unit == "ns" else r"[\d,]+ %s" % unit
        if not re.match(r"^Function: %s \(%s, [\d.]+%%\)$" % (re.escape(search), value), details):
            failures.append(f"hover details: {details!r} (unit {unit})")

        for e in p.events:
            m = e.get("method")
            if m == "Runtime.exceptionThrown":
                failures.append(f"JS exception: {e['params']['exceptionDetails']}")
            elif m == "Runtime.consoleAPICalled" and e["params"]["type"] == "error":
                failures.append(f"console error: {e['params']['args']}")
            elif m == "Log.entryAdded" and e["params"]["entry"]["level"] == "error":
                failures.append(f"browser error: {e['params']['entry'].get('text')}")
    except Exception as e:  # report, do not hang or crash the test
        failures.append(f"{type(e).__name__}: {e}")
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(profile, ignore_errors=True)
    for f in failures:
        print("svg_browser:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
