"""Puppeteer-style scripts on the local engine: written the Puppeteer way, checked by pixels and values."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from concurrent.futures import CancelledError

import psutil
import pytest

from app.core.errors import JobTimeout, ScriptFailed, ScriptSyntaxError
from app.core.jobs import RunScript
from app.core.results import Output
from app.engines.local import LocalEngine, LocalEngineConfig
from tests.conftest import TestSite, close_to, image, pdf_text, rgb


def run(engine: LocalEngine, source: str, **options: object) -> Output:
    return engine.submit(RunScript(source, **options)).result(timeout=90)  # type: ignore[arg-type]


def result(output: Output) -> object:
    assert output.result is not None
    return json.loads(output.result)


def node_processes() -> list[psutil.Process]:
    found = []
    for proc in psutil.Process().children(recursive=True):
        try:
            if "script_runner.js" in " ".join(proc.cmdline()):
                found.append(proc)
        except psutil.Error:
            pass
    return found


def test_a_form_filled_the_puppeteer_way(engine: LocalEngine, site: TestSite) -> None:
    script = f"""
        await page.setViewport({{ width: 640, height: 480 }});
        await page.goto('{site.url}/form.html', {{ waitUntil: 'networkidle0' }});
        await page.type('#name', 'Ada');
        await page.select('#color', 'green');
        await page.click('#go');
        await page.waitForSelector('#out.done', {{ visible: true }});
        return await page.$eval('#out', el => el.textContent);
    """
    output = run(engine, script)
    assert result(output) == "Hello, Ada"
    assert (output.width, output.height) == (640, 480) and output.media_type == "image/png"
    assert close_to(rgb(output.data, 150, 250), (0, 160, 0))  # the answer box, painted green


def test_keyboard_mouse_and_handles(engine: LocalEngine, site: TestSite) -> None:
    script = f"""
        await page.goto('{site.url}/form.html');
        await page.focus('#name');
        await page.keyboard.type('Grace');
        await page.keyboard.press('Enter');
        const title = await page.title();
        const box = await (await page.$('#go')).boundingBox();
        await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
        const answer = await page.waitForFunction(() => document.querySelector('#out').textContent);
        const options = await page.$$eval('#color option', (items, prefix) => items.map(o => prefix + o.value), '>');
        const input = await page.$('#name');
        const value = await input.evaluate((el, suffix) => el.value + suffix, '!');
        const tag = await (await input.getProperty('tagName')).jsonValue();
        const items = await page.$$('form > *');
        return {{ title, answer: await answer.jsonValue(), options, value, tag, count: items.length,
                 url: page.url(), viewport: page.viewport() }};
    """
    assert result(run(engine, script)) == {
        "title": "Submitted Grace",
        "answer": "Hello, Grace",
        "options": [">blue", ">green"],
        "value": "Grace!",
        "tag": "INPUT",
        "count": 2,
        "url": f"{site.url}/form.html",
        "viewport": {"width": 1280, "height": 800},
    }


def test_navigation_and_page_console(engine: LocalEngine, site: TestSite) -> None:
    script = f"""
        page.on('console', message => console.log('page said: ' + message.text()));
        await page.goto('{site.url}/nav1.html');
        const count = (await page.$x('//li')).length;
        await Promise.all([page.waitForNavigation(), page.click('#next')]);
        await page.waitForTimeout(100);
        return {{ count, title: await page.title(), url: page.url(), html: (await page.content()).includes('Arrived') }};
    """
    output = run(engine, script)
    assert result(output) == {"count": 3, "title": "Second page", "url": f"{site.url}/nav2.html", "html": True}
    assert "log: page said: second page says hi" in output.console


def test_headers_user_agent_cookies_and_media(engine: LocalEngine, site: TestSite) -> None:
    script = f"""
        await page.setExtraHTTPHeaders({{ 'X-Pressroom-Test': 'yes' }});
        await page.setUserAgent('PressroomBot/1.0');
        await page.goto('{site.url}/echo');
        const headers = JSON.parse(await page.$eval('#headers', el => el.textContent));
        await page.setCookie({{ name: 'flavour', value: 'oat' }});
        const cookies = await page.cookies();
        await page.emulateMediaType('print');
        const print = await page.evaluate(() => matchMedia('print').matches);
        return {{ header: headers['x-pressroom-test'], agent: headers['user-agent'],
                 navigator: await page.evaluate(() => navigator.userAgent),
                 cookies: cookies.map(c => c.name + '=' + c.value), print }};
    """
    assert result(run(engine, script)) == {
        "header": "yes",
        "agent": "PressroomBot/1.0",
        "navigator": "PressroomBot/1.0",
        "cookies": ["flavour=oat"],
        "print": True,
    }
    # none of it is left for the next job on any pooled page
    later = "await page.goto('{url}/echo'); return [await page.evaluate(() => navigator.userAgent), await page.cookies()];"
    for _ in range(4):
        agent, cookies = result(run(engine, later.format(url=site.url)))  # type: ignore[misc]
        assert "PressroomBot" not in agent and cookies == []


def test_console_output_is_reported(engine: LocalEngine) -> None:
    output = run(engine, "console.log('plain', 42, { a: [1, 2] }); console.warn('careful'); console.error(new Error('bad'));")
    assert output.console == ('log: plain 42 {"a":[1,2]}', "warn: careful", "error: Error: bad")
    assert output.result is None


def test_returned_bytes_become_the_output(engine: LocalEngine) -> None:
    pdf = run(engine, "await page.setContent('<h1>From a script</h1>'); return await page.pdf({ format: 'A5' });")
    assert pdf.media_type == "application/pdf" and pdf.suggested_name == "script.pdf"
    assert "From a script" in pdf_text(pdf.data)[0]
    jpeg = run(
        engine,
        "await page.setViewport({ width: 300, height: 200 }); return await page.screenshot({ type: 'jpeg', quality: 50 });",
    )
    assert jpeg.media_type == "image/jpeg" and (jpeg.width, jpeg.height) == (300, 200)


def test_full_page_and_device_scale(engine: LocalEngine) -> None:
    tall = "await page.setContent('<div style=\"height: 3000px; background: rgb(0,0,255)\"></div>');"
    output = run(engine, tall, full_page=True)
    assert output.width == 1280 and output.height is not None and output.height >= 3000
    sharp = run(engine, "await page.setViewport({ width: 200, height: 100, deviceScaleFactor: 2 });" + tall)
    assert (sharp.width, sharp.height) == (400, 200)
    assert run(engine, "await page.setContent('<p>x</p>');").width == 1280  # the next script is back to normal


def test_start_url(engine: LocalEngine, site: TestSite) -> None:
    output = run(engine, "return [page.url(), await page.title()];", url=f"{site.url}/nav1.html")
    assert result(output) == [f"{site.url}/nav1.html", "First page"]


def test_scripts_do_not_see_each_other_or_node(engine: LocalEngine) -> None:
    run(engine, "globalThis.leftover = 'secret'; setTimeout(() => console.log('late'), 50);")
    assert result(run(engine, "return typeof leftover;")) == "undefined"
    probe = """
        const reach = [typeof require, typeof process, typeof module, typeof Buffer];
        let escape;
        try { escape = page.constructor.constructor('return typeof process')(); } catch (e) { escape = 'blocked: ' + e.name; }
        return { reach, escape };
    """
    found = result(run(engine, probe))
    assert found["reach"] == ["undefined"] * 4  # type: ignore[index]
    assert found["escape"] in ("undefined", "blocked: EvalError")  # type: ignore[index]


# -- errors ----------------------------------------------------------------------------------------


def test_syntax_error_has_line_and_column(engine: LocalEngine) -> None:
    with pytest.raises(ScriptSyntaxError, match="line 2, column 14: Unexpected token"):
        run(engine, "await page.setContent('<p>x</p>');\nconst a = 1 +;\n")
    with pytest.raises(ScriptSyntaxError, match="the end of the script"):
        run(engine, "await page.evaluate(() => {\n  return 1;\n")


def test_thrown_error_has_message_and_line(engine: LocalEngine) -> None:
    with pytest.raises(ScriptFailed, match="at line 3: TypeError: Cannot read properties of undefined"):
        run(engine, "const data = {};\n\nreturn data.missing.field;")
    with pytest.raises(ScriptFailed, match="at line 1: Error: no such thing"):
        run(engine, "function check() { throw new Error('no such thing'); }\ncheck();")


def test_failed_page_call_names_the_script_line(engine: LocalEngine) -> None:
    with pytest.raises(ScriptFailed, match="at line 2: TimeoutError"):
        run(engine, "await page.setContent('<p>x</p>');\nawait page.waitForSelector('#never', { timeout: 300 });")
    with pytest.raises(ScriptFailed, match="setRequestInterception is not supported"):
        run(engine, "await page.setRequestInterception(true);")
    with pytest.raises(ScriptFailed, match="cannot write files"):
        run(engine, "await page.screenshot({ path: '/tmp/x.png' });")


def test_caught_errors_do_not_fail_the_script(engine: LocalEngine) -> None:
    script = "try { await page.click('#nothing', { timeout: 200 }); } catch (e) { return e.name + ': ' + e.message.slice(0, 7); }"
    assert result(run(engine, script)) == "TimeoutError: Timeout"


@pytest.fixture
def own_engine() -> Iterator[LocalEngine]:
    with LocalEngine(LocalEngineConfig(concurrency=2)) as engine:
        yield engine


def test_a_hanging_script_times_out_and_its_node_goes(own_engine: LocalEngine) -> None:
    before = {p.pid for p in node_processes()}
    with pytest.raises(JobTimeout):
        run(own_engine, "while (true) {}", timeout=2)
    deadline = time.monotonic() + 10
    while {p.pid for p in node_processes()} - before and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not {p.pid for p in node_processes()} - before, "the stuck Node process was killed"
    assert result(run(own_engine, "return 'alive';")) == "alive"


@pytest.mark.parametrize("body", ["await new Promise(resolve => setTimeout(resolve, 60000));", "while (true) {}"])
def test_cancel_stops_a_script(own_engine: LocalEngine, body: str) -> None:
    assert result(run(own_engine, "return 1;")) == 1  # the runner is warm
    future = own_engine.submit(RunScript(body))
    time.sleep(0.5)
    busy = {p.pid for p in node_processes()}
    future.cancel()
    with pytest.raises(CancelledError):
        future.result()
    deadline = time.monotonic() + 5
    while len(node_processes()) >= len(busy) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(node_processes()) < len(busy), "the Node process running the script was killed"
    assert result(run(own_engine, "return 2;")) == 2


def test_no_node_or_chromium_left_behind() -> None:
    def ours() -> set[int]:
        pids = set()
        for proc in psutil.Process().children(recursive=True):
            try:
                line = " ".join(proc.cmdline())
            except psutil.Error:
                continue
            if "script_runner.js" in line or "--remote-debugging-pipe" in line or "--type=" in line:
                pids.add(proc.pid)
        return pids

    before = ours()
    engine = LocalEngine(LocalEngineConfig(concurrency=2))
    futures = [engine.submit(RunScript(f"await page.setContent('<p>{n}</p>'); return {n};")) for n in range(4)]
    hanging = engine.submit(RunScript("while (true) {}", timeout=60))
    assert [json.loads(f.result(timeout=60).result or "null") for f in futures] == [0, 1, 2, 3]
    assert ours() - before, "scripts ran in processes of their own"
    engine.close()
    assert hanging.done()
    deadline = time.monotonic() + 10
    while ours() - before and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not ours() - before


def test_png_of_the_page_when_the_script_ends(engine: LocalEngine) -> None:
    output = run(engine, "await page.setContent('<body style=\"margin:0;background:rgb(255,0,0)\"></body>');")
    assert close_to(rgb(output.data, 640, 400), (255, 0, 0)) and image(output.data).size == (1280, 800)
