"""Puppeteer-style scripts on the local engine.

A script runs in a Node process (``script_runner.js``, on the Node runtime the playwright wheel ships;
no npm needed), in a fresh JavaScript context of its own. Runner processes are kept warm and reused, one
script at a time each. A runner holds no browser connection: each ``page.*`` call comes here as a
request and is performed with Playwright on one of the engine's warm pages. Puppeteer's page API is
mapped onto Playwright's here, in ``ScriptSession``. A script that times out or is cancelled has its
Node process killed (a script stuck in ``while (true) {}`` stops only that way); the engine kills the
rest when it closes, so no Node process is ever left behind.

Why not connect the runner to the browser itself: Chromium would need a DevTools port open on
loopback, reachable by every local user and process, and every script would pay for a browser context
of its own. This way a script uses the same warm, reset pages as every other job.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import logging
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from playwright.async_api import ElementHandle, JSHandle, Page, Response
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout

from app.core.errors import BrowserError, ScriptFailed, ScriptSyntaxError
from app.core.jobs import RunScript
from app.core.results import Output
from app.engines.local.errors import first_line, load_error
from app.engines.local.render import BLANK, Deadline, Slot, emulate, go_home, png_to_webp

log = logging.getLogger("pressroom.scripts")

RUNNER = Path(__file__).with_name("script_runner.js")
DEFAULT_WAIT_MS = 30_000  # Puppeteer's default for waits and navigations
NODE_HEAP_MB = 512


def node_executable() -> Path:
    """The Node runtime inside the playwright wheel."""
    import playwright

    driver = Path(playwright.__file__).parent / "driver"
    node = driver / ("node.exe" if sys.platform == "win32" else "node")
    if not node.is_file():
        raise BrowserError(
            f"the Node runtime of Playwright is missing ({node})",
            "Reinstall Pressroom (pip install --force-reinstall playwright)",
        )
    return node


# -- runner processes ------------------------------------------------------------------------------


class Runner:
    """A Node process that runs scripts, one at a time."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.jobs = 0

    @classmethod
    async def spawn(cls) -> Runner:
        process = await asyncio.create_subprocess_exec(
            str(node_executable()),
            "--disallow-code-generation-from-strings",
            f"--max-old-space-size={NODE_HEAP_MB}",
            str(RUNNER),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            limit=1 << 30,  # screenshots travel as one line of base64
        )
        runner = cls(process)
        ready = await runner.receive()
        if ready is None or ready.get("type") != "ready":
            await runner.close()
            raise BrowserError("the script runner did not start", "Reinstall Pressroom")
        return runner

    @property
    def alive(self) -> bool:
        return self.process.returncode is None

    async def receive(self) -> dict[str, Any] | None:
        assert self.process.stdout is not None
        line = await self.process.stdout.readline()
        return json.loads(line) if line else None

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        if not self.process.stdin.is_closing():
            self.process.stdin.write(json.dumps(message).encode() + b"\n")

    async def close(self) -> None:
        if self.alive:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.process.wait(), 5)


class RunnerPool:
    """Warm runner processes, reused from script to script."""

    MAX_JOBS = 200  # a runner is replaced after this many scripts, to keep it small

    def __init__(self, keep: int) -> None:
        self._keep = keep
        self._idle: list[Runner] = []
        self._closing: set[asyncio.Task[None]] = set()
        self._closed = False

    async def take(self) -> Runner:
        while self._idle:
            runner = self._idle.pop()
            if runner.alive:
                return runner
        return await Runner.spawn()

    def give_back(self, runner: Runner) -> None:
        runner.jobs += 1
        if runner.alive and not self._closed and runner.jobs < self.MAX_JOBS and len(self._idle) < self._keep:
            self._idle.append(runner)
        else:
            self.discard(runner)

    def discard(self, runner: Runner) -> None:
        """Kill a runner (a script that ran over its time, or was cancelled) without waiting for it."""
        task = asyncio.get_running_loop().create_task(runner.close())
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def close(self) -> None:
        self._closed = True
        idle, self._idle = self._idle, []
        await asyncio.gather(*(runner.close() for runner in idle), *self._closing, return_exceptions=True)


# -- a script job ----------------------------------------------------------------------------------


@dataclass
class Outcome:
    ok: bool
    result: str | None = None  # JSON text of the return value
    binary: bytes | None = None  # a returned Buffer/Uint8Array
    error: dict[str, Any] = field(default_factory=dict)
    finished: bool = True  # the runner said "done" (False: it stopped on its own)


async def run_script(slot: Slot, job: RunScript, deadline: Deadline, runners: RunnerPool) -> Output:
    page = slot.page
    slot.dirty = slot.networked = slot.fonts_pending = True  # a script can do anything
    await emulate(slot, viewport=(1280, 800), media_type=None, scheme="light")
    if slot.home != BLANK or page.url != BLANK:
        await go_home(slot, BLANK, deadline)
        slot.dirty = True
    if job.url:
        try:
            await page.goto(job.url, timeout=deadline.ms)
        except PlaywrightError as exc:
            raise load_error(exc, job.url) from exc
    session = ScriptSession(slot, deadline)
    runner = await runners.take()
    clean = False
    try:
        outcome = await session.drive(runner, job.source, {"width": slot.viewport[0], "height": slot.viewport[1]})
        clean = runner.alive and outcome.finished
    finally:
        if clean:
            runners.give_back(runner)
        else:
            runners.discard(runner)  # timed out, cancelled, or gone: the process goes with the script
        await session.dispose()
    if not outcome.ok:
        raise _script_error(outcome.error, len(job.source.splitlines()))
    console = tuple(session.console)
    if outcome.binary is not None:
        return Output.from_bytes(outcome.binary, job.name, console=console)
    shot = await session.capture({"fullPage": job.full_page})
    return Output.from_bytes(shot, job.name, console=console, result=outcome.result)


def _script_error(error: dict[str, Any], lines: int) -> Exception:
    name, message = error.get("name") or "Error", error.get("message") or "the script failed"
    line, column = error.get("line"), error.get("column")
    if error.get("kind") == "syntax":
        if line and line > lines:  # the parser ran off the end: an unclosed bracket or string
            at = f"the end of the script (line {lines})"
        elif line:
            at = f"line {line}, column {column}" if column else f"line {line}"
        else:
            at = "an unknown place"
        return ScriptSyntaxError(f"the script has a syntax error at {at}: {message}", "Fix the script and run it again")
    at = f" at line {line}" if line else ""
    return ScriptFailed(f"the script failed{at}: {name}: {message}", "Fix the script, or the page it expects")


class ScriptError(Exception):
    """An error for the script itself (it can catch it), with Puppeteer-like names."""

    def __init__(self, message: str, name: str = "Error") -> None:
        super().__init__(message)
        self.name = name


@dataclass(frozen=True)
class Function:
    """JavaScript source of a function (or an expression) sent by the script."""

    source: str

    def applied(self, extra: int = 0) -> str:
        """``(a0, ..., rest) => (fn)(a0, ..., ...rest)``: Puppeteer passes arguments one by one."""
        source = self.source.strip()
        if not source.startswith(("function", "async", "(")) and "=>" not in source.split("{", 1)[0]:
            source = "function " + source  # method shorthand: `foo(x) { ... }`
        fixed = ", ".join(f"a{i}" for i in range(extra))
        lead = fixed + ", " if fixed else ""
        return f"({lead}rest) => ({source})({lead}...rest)"


Handler = Callable[..., Awaitable[Any]]
HANDLERS: dict[str, Handler] = {}


def api(name: str) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        HANDLERS[name] = handler
        return handler

    return register


class ScriptSession:
    """The engine's side of one script: performs its page calls, keeps its handles and console."""

    def __init__(self, slot: Slot, deadline: Deadline) -> None:
        self.slot = slot
        self.page: Page = slot.page
        self.deadline = deadline
        self.handles: dict[int, JSHandle] = {}
        self.console: list[str] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self._runner: Runner | None = None
        self.device_scale: float | None = None  # set by setViewport({deviceScaleFactor}) through DevTools

    async def drive(self, runner: Runner, source: str, viewport: dict[str, int]) -> Outcome:
        self._runner = runner
        self.page.on("console", self._page_console)
        try:
            runner.send({"op": "run", "source": source, "url": self.page.url, "viewport": viewport})
            while True:
                message = await runner.receive()
                if message is None:
                    stopped = {"kind": "thrown", "name": "Error", "message": "the script runner stopped unexpectedly"}
                    return Outcome(False, error=stopped, finished=False)
                kind = message.get("type")
                if kind == "call":
                    task = asyncio.get_running_loop().create_task(self._answer(message))
                    self._tasks.add(task)
                    task.add_done_callback(self._tasks.discard)
                elif kind == "console":
                    self.console.append(f"{message.get('level', 'log')}: {message.get('text', '')}")
                elif kind == "done":
                    if message.get("ok"):
                        binary = base64.b64decode(message["binary"]) if "binary" in message else None
                        return Outcome(True, result=message.get("result"), binary=binary)
                    return Outcome(False, error=message.get("error") or {})
        finally:
            self.page.remove_listener("console", self._page_console)
            for task in list(self._tasks):
                task.cancel()
            if self._tasks:
                await asyncio.wait(list(self._tasks), timeout=5)

    def _page_console(self, message: Any) -> None:
        if self._runner is not None:
            self._runner.send({"op": "event", "event": "console", "data": {"type": message.type, "text": message.text}})

    async def _answer(self, message: dict[str, Any]) -> None:
        assert self._runner is not None
        call, method = message["call"], message["method"]
        try:
            handler = HANDLERS.get(method)
            if handler is None:
                raise ScriptError(f"{method}() is not supported in Pressroom scripts", "Error")
            value = await handler(self, *(self._decode(arg) for arg in message.get("args", [])))
            reply = {"op": "reply", "call": call, "ok": True, "value": self._encode(value)}
        except ScriptError as exc:
            reply = {"op": "reply", "call": call, "ok": False, "value": {"name": exc.name, "message": str(exc)}}
        except PlaywrightTimeout as exc:
            reply = {"op": "reply", "call": call, "ok": False, "value": {"name": "TimeoutError", "message": first_line(exc)}}
        except PlaywrightError as exc:
            reply = {"op": "reply", "call": call, "ok": False, "value": {"name": "Error", "message": first_line(exc)}}
        reply["url"] = self.page.url
        self._runner.send(reply)

    # -- values in and out --

    def _decode(self, value: Any) -> Any:
        if isinstance(value, list):
            return [self._decode(item) for item in value]
        if isinstance(value, dict):
            if "__handle" in value:
                handle = self.handles.get(value["__handle"])
                if handle is None:
                    raise ScriptError("the element handle has been disposed")
                return handle
            if "__function" in value:
                return Function(value["__function"])
            if "__binary" in value:
                return base64.b64decode(value["__binary"])
            if "__undefined" in value:
                return None
            return {key: self._decode(item) for key, item in value.items()}
        return value

    def _encode(self, value: Any) -> Any:
        if isinstance(value, JSHandle):
            handle_id = len(self.handles) + 1
            self.handles[handle_id] = value
            return {"__handle": handle_id, "element": value.as_element() is not None}
        if isinstance(value, bytes):
            return {"__binary": base64.b64encode(value).decode()}
        if isinstance(value, Response):
            return {
                "__response": {
                    "status": value.status,
                    "statusText": value.status_text,
                    "url": value.url,
                    "headers": value.headers,
                }
            }
        if isinstance(value, list | tuple):
            return [self._encode(item) for item in value]
        if isinstance(value, dict):
            return {key: self._encode(item) for key, item in value.items()}
        return value

    async def capture(self, options: dict[str, Any]) -> bytes:
        """A screenshot of the page (PNG or JPEG bytes), with Puppeteer's options.

        After ``setViewport({deviceScaleFactor})`` the picture is taken through DevTools directly:
        Playwright's screenshot would put its own device metrics back first.
        """
        arguments, _kind = _screenshot_options(self, options)
        clip = options.get("clip")
        full_page = bool(options.get("fullPage"))
        if self.device_scale is None:
            if clip:
                arguments["clip"] = {key: float(clip[key]) for key in ("x", "y", "width", "height")}
            return await self.page.screenshot(full_page=full_page, **arguments)
        cdp = await self.slot.cdp()
        params: dict[str, Any] = {"format": arguments["type"], "captureBeyondViewport": full_page}
        if "quality" in arguments:
            params["quality"] = arguments["quality"]
        if full_page:
            width, height = await self.page.evaluate(
                "() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]"
            )
            params["clip"] = {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}
        elif clip:
            params["clip"] = {**{key: float(clip[key]) for key in ("x", "y", "width", "height")}, "scale": 1}
        if arguments["omit_background"]:
            await cdp.send("Emulation.setDefaultBackgroundColorOverride", {"color": {"r": 0, "g": 0, "b": 0, "a": 0}})
        try:
            shot = await cdp.send("Page.captureScreenshot", params)
        finally:
            if arguments["omit_background"]:
                await cdp.send("Emulation.setDefaultBackgroundColorOverride", {})
        return base64.b64decode(shot["data"])

    def timeout(self, options: dict[str, Any] | None) -> float:
        """Milliseconds for a wait: the script's (0: no limit), Puppeteer's 30 s, never past the job's end."""
        wanted = (options or {}).get("timeout")
        left = self.deadline.ms
        if wanted is None:
            return min(DEFAULT_WAIT_MS, left)
        return left if wanted == 0 else min(float(wanted), left)

    async def dispose(self) -> None:
        for handle in self.handles.values():
            with contextlib.suppress(Exception):
                await handle.dispose()
        self.handles.clear()


def _wait_until(options: dict[str, Any]) -> Any:
    wanted = options.get("waitUntil", "load")
    events = wanted if isinstance(wanted, list) else [wanted]
    order = ["commit", "domcontentloaded", "load", "networkidle"]
    mapped = ["networkidle" if str(e).startswith("networkidle") else str(e) for e in events]
    known = [e for e in mapped if e in order]
    return max(known, key=order.index) if known else "load"


def _needs(value: Any, kind: type, what: str) -> None:
    if not isinstance(value, kind):
        raise ScriptError(f"{what} must be a {kind.__name__}", "TypeError")


# -- page ------------------------------------------------------------------------------------------


@api("goto")
async def _goto(s: ScriptSession, url: str, options: dict[str, Any]) -> Any:
    _needs(url, str, "the address given to page.goto()")
    if s.slot.guarded and not url.startswith(("http://", "https://", "about:", "data:")):
        raise ScriptError(f"this server opens only web addresses, not {url[:100]}")
    return await s.page.goto(url, wait_until=_wait_until(options), timeout=s.timeout(options), referer=options.get("referer"))


@api("reload")
async def _reload(s: ScriptSession, options: dict[str, Any]) -> Any:
    return await s.page.reload(wait_until=_wait_until(options), timeout=s.timeout(options))


@api("goBack")
async def _go_back(s: ScriptSession, options: dict[str, Any]) -> Any:
    return await s.page.go_back(wait_until=_wait_until(options), timeout=s.timeout(options))


@api("goForward")
async def _go_forward(s: ScriptSession, options: dict[str, Any]) -> Any:
    return await s.page.go_forward(wait_until=_wait_until(options), timeout=s.timeout(options))


@api("setContent")
async def _set_content(s: ScriptSession, html: str, options: dict[str, Any]) -> None:
    _needs(html, str, "the HTML given to page.setContent()")
    await s.page.set_content(html, wait_until=_wait_until(options), timeout=s.timeout(options))


@api("content")
async def _content(s: ScriptSession) -> str:
    return await s.page.content()


@api("title")
async def _title(s: ScriptSession) -> str:
    return await s.page.title()


@api("setViewport")
async def _set_viewport(s: ScriptSession, viewport: dict[str, Any]) -> None:
    if not isinstance(viewport, dict) or "width" not in viewport or "height" not in viewport:
        raise ScriptError("page.setViewport() needs {width, height}", "TypeError")
    width, height = int(viewport["width"]), int(viewport["height"])
    scale = float(viewport.get("deviceScaleFactor") or s.slot.scale)
    mobile = bool(viewport.get("isMobile"))
    await s.page.set_viewport_size({"width": width, "height": height})
    s.slot.viewport = (width, height)
    if scale != s.slot.scale or mobile:
        cdp = await s.slot.cdp()
        await cdp.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": scale, "mobile": mobile},
        )
        s.device_scale = scale
        s.slot.tainted = True


@api("waitForSelector")
async def _wait_for_selector(s: ScriptSession, selector: str, options: dict[str, Any]) -> Any:
    state: Literal["visible", "hidden", "attached"] = (
        "visible" if options.get("visible") else "hidden" if options.get("hidden") else "attached"
    )
    return await s.page.wait_for_selector(selector, state=state, timeout=s.timeout(options))


@api("waitForFunction")
async def _wait_for_function(s: ScriptSession, fn: Any, options: dict[str, Any], args: list[Any]) -> Any:
    wanted = options.get("polling", "raf")
    polling: float | Literal["raf"] = float(wanted) if isinstance(wanted, int | float) else "raf"
    if isinstance(fn, Function):
        return await s.page.wait_for_function(fn.applied(), arg=args, polling=polling, timeout=s.timeout(options))
    return await s.page.wait_for_function(str(fn), polling=polling, timeout=s.timeout(options))


@api("waitForNavigation")
async def _wait_for_navigation(s: ScriptSession, options: dict[str, Any]) -> Any:
    async with s.page.expect_navigation(wait_until=_wait_until(options), timeout=s.timeout(options)) as navigation:
        pass
    return await navigation.value


@api("waitForNetworkIdle")
async def _wait_for_network_idle(s: ScriptSession, options: dict[str, Any]) -> None:
    await s.page.wait_for_load_state("networkidle", timeout=s.timeout(options))


def _click_options(s: ScriptSession, options: dict[str, Any]) -> dict[str, Any]:
    return {
        "button": options.get("button", "left"),
        "click_count": int(options.get("clickCount", options.get("count", 1))),
        "delay": float(options.get("delay", 0)),
        "timeout": s.timeout(options),
    }


@api("click")
async def _click(s: ScriptSession, selector: str, options: dict[str, Any]) -> None:
    await s.page.click(selector, **_click_options(s, options))


@api("type")
async def _type(s: ScriptSession, selector: str, text: str, options: dict[str, Any]) -> None:
    await s.page.locator(selector).first.press_sequentially(
        str(text), delay=float(options.get("delay", 0)), timeout=s.timeout(options)
    )


@api("focus")
async def _focus(s: ScriptSession, selector: str, options: dict[str, Any]) -> None:
    await s.page.focus(selector, timeout=s.timeout(options))


@api("hover")
async def _hover(s: ScriptSession, selector: str, options: dict[str, Any]) -> None:
    await s.page.hover(selector, timeout=s.timeout(options))


@api("select")
async def _select(s: ScriptSession, selector: str, values: list[str], options: dict[str, Any]) -> list[str]:
    return await s.page.select_option(selector, value=[str(v) for v in values], timeout=s.timeout(options))


@api("evaluate")
async def _evaluate(s: ScriptSession, fn: Any, args: list[Any]) -> Any:
    if isinstance(fn, Function):
        return await s.page.evaluate(fn.applied(), args)
    return await s.page.evaluate(str(fn))


@api("evaluateHandle")
async def _evaluate_handle(s: ScriptSession, fn: Any, args: list[Any]) -> Any:
    if isinstance(fn, Function):
        return await s.page.evaluate_handle(fn.applied(), args)
    return await s.page.evaluate_handle(str(fn))


@api("$")
async def _query(s: ScriptSession, selector: str) -> Any:
    return await s.page.query_selector(selector)


@api("$$")
async def _query_all(s: ScriptSession, selector: str) -> Any:
    return await s.page.query_selector_all(selector)


@api("$eval")
async def _eval_on(s: ScriptSession, selector: str, fn: Any, args: list[Any]) -> Any:
    element = await s.page.query_selector(selector)
    if element is None:
        raise ScriptError(f'failed to find element matching selector "{selector}"')
    try:
        return await element.evaluate(_function(fn).applied(1), args)
    finally:
        await element.dispose()


@api("$$eval")
async def _eval_on_all(s: ScriptSession, selector: str, fn: Any, args: list[Any]) -> Any:
    return await s.page.eval_on_selector_all(selector, f"(elements, rest) => ({_function(fn).source})(elements, ...rest)", args)


def _function(value: Any) -> Function:
    if not isinstance(value, Function):
        raise ScriptError("a function is expected here", "TypeError")
    return value


def _no_path(options: dict[str, Any], method: str) -> None:
    if options.get("path"):
        raise ScriptError(f"{method}({{path}}) cannot write files in Pressroom scripts; return the result instead")


def _screenshot_options(s: ScriptSession, options: dict[str, Any]) -> tuple[dict[str, Any], str]:
    kind = str(options.get("type", "png")).lower()
    if kind not in ("png", "jpeg", "webp"):
        raise ScriptError(f"screenshot type {kind} is not supported; use png, jpeg or webp", "TypeError")
    arguments: dict[str, Any] = {
        "type": "jpeg" if kind == "jpeg" else "png",
        "omit_background": bool(options.get("omitBackground")),
        "timeout": s.timeout(options),
    }
    if kind == "jpeg" and options.get("quality") is not None:
        arguments["quality"] = int(options["quality"])
    return arguments, kind


async def _finish_shot(data: bytes, kind: str, options: dict[str, Any]) -> Any:
    if kind == "webp":
        quality = options.get("quality")
        data = await asyncio.to_thread(png_to_webp, data, 80 if quality is None else int(quality))
    if options.get("encoding") == "base64":
        return base64.b64encode(data).decode()
    return data


@api("screenshot")
async def _screenshot(s: ScriptSession, options: dict[str, Any]) -> Any:
    _no_path(options, "page.screenshot")
    _arguments, kind = _screenshot_options(s, options)
    return await _finish_shot(await s.capture(options), kind, options)


@api("pdf")
async def _pdf(s: ScriptSession, options: dict[str, Any]) -> bytes:
    _no_path(options, "page.pdf")
    names = {
        "format": "format",
        "width": "width",
        "height": "height",
        "landscape": "landscape",
        "scale": "scale",
        "printBackground": "print_background",
        "displayHeaderFooter": "display_header_footer",
        "headerTemplate": "header_template",
        "footerTemplate": "footer_template",
        "pageRanges": "page_ranges",
        "preferCSSPageSize": "prefer_css_page_size",
        "tagged": "tagged",
        "outline": "outline",
        "margin": "margin",
    }
    arguments = {python: options[js] for js, python in names.items() if options.get(js) is not None}
    for side in ("width", "height"):
        if isinstance(arguments.get(side), int | float):
            arguments[side] = f"{arguments[side]}px"
    if isinstance(arguments.get("margin"), dict):
        arguments["margin"] = {k: f"{v}px" if isinstance(v, int | float) else v for k, v in arguments["margin"].items()}
    return await s.page.pdf(**arguments)


@api("setUserAgent")
async def _set_user_agent(s: ScriptSession, user_agent: str) -> None:
    _needs(user_agent, str, "the user agent")
    cdp = await s.slot.cdp()
    await cdp.send("Emulation.setUserAgentOverride", {"userAgent": user_agent})
    s.slot.tainted = True


@api("setExtraHTTPHeaders")
async def _set_headers(s: ScriptSession, headers: dict[str, Any]) -> None:
    _needs(headers, dict, "the headers")
    await s.page.set_extra_http_headers({str(k): str(v) for k, v in headers.items()})
    s.slot.tainted = True


_SAME_SITE = {"strict": "Strict", "lax": "Lax", "none": "None"}


@api("setCookie")
async def _set_cookie(s: ScriptSession, cookies: list[dict[str, Any]]) -> None:
    prepared = []
    for cookie in cookies:
        if not isinstance(cookie, dict) or "name" not in cookie or "value" not in cookie:
            raise ScriptError("a cookie needs a name and a value", "TypeError")
        item: dict[str, Any] = {"name": str(cookie["name"]), "value": str(cookie["value"])}
        if cookie.get("domain"):
            item["domain"], item["path"] = cookie["domain"], cookie.get("path", "/")
        else:
            url = cookie.get("url") or s.page.url
            if not str(url).startswith(("http://", "https://")):
                raise ScriptError("page.setCookie() needs a url or domain while the page is not on a web site")
            item["url"] = url
        for puppeteer, playwright in (("expires", "expires"), ("httpOnly", "httpOnly"), ("secure", "secure")):
            if cookie.get(puppeteer) is not None:
                item[playwright] = cookie[puppeteer]
        if cookie.get("sameSite"):
            item["sameSite"] = _SAME_SITE.get(str(cookie["sameSite"]).lower(), "Lax")
        prepared.append(item)
    await s.page.context.add_cookies(prepared)  # type: ignore[arg-type]  # dicts of SetCookieParam's keys
    s.slot.networked = True


@api("cookies")
async def _cookies(s: ScriptSession, urls: list[str]) -> list[dict[str, Any]]:
    found = await s.page.context.cookies(urls or [s.page.url])
    return [
        {
            "name": c["name"],
            "value": c["value"],
            "domain": c["domain"],
            "path": c["path"],
            "expires": c["expires"],
            "size": len(c["name"]) + len(c["value"]),
            "httpOnly": c["httpOnly"],
            "secure": c["secure"],
            "session": c["expires"] == -1,
            "sameSite": c.get("sameSite"),
        }
        for c in found
    ]


@api("deleteCookie")
async def _delete_cookie(s: ScriptSession, cookies: list[dict[str, Any]]) -> None:
    for cookie in cookies:
        await s.page.context.clear_cookies(name=cookie.get("name"), domain=cookie.get("domain"), path=cookie.get("path"))


@api("emulateMediaType")
async def _emulate_media_type(s: ScriptSession, media_type: str | None) -> None:
    if media_type not in (None, "screen", "print"):
        raise ScriptError(f"unsupported media type: {media_type}", "TypeError")
    await s.page.emulate_media(media="screen" if media_type == "screen" else "print" if media_type == "print" else "null")
    s.slot.tainted = True


@api("emulateMediaFeatures")
async def _emulate_media_features(s: ScriptSession, features: list[dict[str, str]]) -> None:
    for feature in features:
        name, value = feature.get("name"), feature.get("value")
        if name == "prefers-color-scheme":
            await s.page.emulate_media(color_scheme=value if value in ("light", "dark") else "null")  # type: ignore[arg-type]
        elif name == "prefers-reduced-motion":
            await s.page.emulate_media(reduced_motion="reduce" if value == "reduce" else "no-preference")
        else:
            raise ScriptError(f"the media feature {name} is not supported", "TypeError")
    s.slot.tainted = True


@api("addScriptTag")
async def _add_script_tag(s: ScriptSession, options: dict[str, Any]) -> Any:
    _no_path(options, "page.addScriptTag")
    return await s.page.add_script_tag(url=options.get("url"), content=options.get("content"), type=options.get("type") or "")


@api("addStyleTag")
async def _add_style_tag(s: ScriptSession, options: dict[str, Any]) -> Any:
    _no_path(options, "page.addStyleTag")
    return await s.page.add_style_tag(url=options.get("url"), content=options.get("content"))


@api("unsupported")
async def _unsupported(s: ScriptSession, what: str) -> None:
    raise ScriptError(f"{what} is not supported in Pressroom scripts")


# -- keyboard and mouse ----------------------------------------------------------------------------


@api("keyboard.type")
async def _keyboard_type(s: ScriptSession, text: str, options: dict[str, Any]) -> None:
    await s.page.keyboard.type(str(text), delay=float(options.get("delay", 0)))


@api("keyboard.press")
async def _keyboard_press(s: ScriptSession, key: str, options: dict[str, Any]) -> None:
    await s.page.keyboard.press(str(key), delay=float(options.get("delay", 0)))


@api("keyboard.down")
async def _keyboard_down(s: ScriptSession, key: str) -> None:
    await s.page.keyboard.down(str(key))


@api("keyboard.up")
async def _keyboard_up(s: ScriptSession, key: str) -> None:
    await s.page.keyboard.up(str(key))


@api("keyboard.sendCharacter")
async def _keyboard_send(s: ScriptSession, text: str) -> None:
    await s.page.keyboard.insert_text(str(text))


@api("mouse.move")
async def _mouse_move(s: ScriptSession, x: float, y: float, options: dict[str, Any]) -> None:
    await s.page.mouse.move(float(x), float(y), steps=int(options.get("steps", 1)))


@api("mouse.click")
async def _mouse_click(s: ScriptSession, x: float, y: float, options: dict[str, Any]) -> None:
    await s.page.mouse.click(
        float(x),
        float(y),
        button=options.get("button", "left"),
        click_count=int(options.get("clickCount", options.get("count", 1))),
        delay=float(options.get("delay", 0)),
    )


@api("mouse.down")
async def _mouse_down(s: ScriptSession, options: dict[str, Any]) -> None:
    await s.page.mouse.down(button=options.get("button", "left"), click_count=int(options.get("clickCount", 1)))


@api("mouse.up")
async def _mouse_up(s: ScriptSession, options: dict[str, Any]) -> None:
    await s.page.mouse.up(button=options.get("button", "left"), click_count=int(options.get("clickCount", 1)))


@api("mouse.wheel")
async def _mouse_wheel(s: ScriptSession, options: dict[str, Any]) -> None:
    await s.page.mouse.wheel(float(options.get("deltaX", 0)), float(options.get("deltaY", 0)))


# -- element and JS handles ------------------------------------------------------------------------


def _element(handle: Any) -> ElementHandle:
    element = handle.as_element() if isinstance(handle, JSHandle) else None
    if element is None:
        raise ScriptError("this handle is not an element", "TypeError")
    return element


@api("element.$")
async def _element_query(s: ScriptSession, handle: Any, selector: str) -> Any:
    return await _element(handle).query_selector(selector)


@api("element.$$")
async def _element_query_all(s: ScriptSession, handle: Any, selector: str) -> Any:
    return await _element(handle).query_selector_all(selector)


@api("element.$eval")
async def _element_eval_on(s: ScriptSession, handle: Any, selector: str, fn: Any, args: list[Any]) -> Any:
    found = await _element(handle).query_selector(selector)
    if found is None:
        raise ScriptError(f'failed to find element matching selector "{selector}"')
    return await found.evaluate(_function(fn).applied(1), args)


@api("element.$$eval")
async def _element_eval_on_all(s: ScriptSession, handle: Any, selector: str, fn: Any, args: list[Any]) -> Any:
    return await _element(handle).eval_on_selector_all(
        selector, f"(elements, rest) => ({_function(fn).source})(elements, ...rest)", args
    )


@api("element.click")
async def _element_click(s: ScriptSession, handle: Any, options: dict[str, Any]) -> None:
    await _element(handle).click(**_click_options(s, options))


@api("element.type")
async def _element_type(s: ScriptSession, handle: Any, text: str, options: dict[str, Any]) -> None:
    await _element(handle).type(str(text), delay=float(options.get("delay", 0)), timeout=s.timeout(options))


@api("element.press")
async def _element_press(s: ScriptSession, handle: Any, key: str, options: dict[str, Any]) -> None:
    await _element(handle).press(str(key), delay=float(options.get("delay", 0)), timeout=s.timeout(options))


@api("element.focus")
async def _element_focus(s: ScriptSession, handle: Any) -> None:
    await _element(handle).focus()


@api("element.hover")
async def _element_hover(s: ScriptSession, handle: Any, options: dict[str, Any]) -> None:
    await _element(handle).hover(timeout=s.timeout(options))


@api("element.select")
async def _element_select(s: ScriptSession, handle: Any, values: list[str]) -> list[str]:
    return await _element(handle).select_option(value=[str(v) for v in values], timeout=s.timeout(None))


@api("element.boundingBox")
async def _element_box(s: ScriptSession, handle: Any) -> Any:
    return await _element(handle).bounding_box()


@api("element.screenshot")
async def _element_screenshot(s: ScriptSession, handle: Any, options: dict[str, Any]) -> Any:
    _no_path(options, "elementHandle.screenshot")
    arguments, kind = _screenshot_options(s, options)
    data = await _element(handle).screenshot(**arguments)
    return await _finish_shot(data, kind, options)


@api("element.scrollIntoView")
async def _element_scroll(s: ScriptSession, handle: Any) -> None:
    await _element(handle).scroll_into_view_if_needed(timeout=s.timeout(None))


@api("element.isVisible")
async def _element_visible(s: ScriptSession, handle: Any) -> bool:
    return await _element(handle).is_visible()


@api("element.isHidden")
async def _element_hidden(s: ScriptSession, handle: Any) -> bool:
    return await _element(handle).is_hidden()


@api("handle.jsonValue")
async def _json_value(s: ScriptSession, handle: Any) -> Any:
    return await handle.json_value()


@api("handle.evaluate")
async def _handle_evaluate(s: ScriptSession, handle: Any, fn: Any, args: list[Any]) -> Any:
    return await handle.evaluate(_function(fn).applied(1), args)


@api("handle.evaluateHandle")
async def _handle_evaluate_handle(s: ScriptSession, handle: Any, fn: Any, args: list[Any]) -> Any:
    return await handle.evaluate_handle(_function(fn).applied(1), args)


@api("handle.getProperty")
async def _handle_property(s: ScriptSession, handle: Any, name: str) -> Any:
    return await handle.get_property(str(name))


@api("handle.dispose")
async def _handle_dispose(s: ScriptSession, handle: Any) -> None:
    await handle.dispose()
