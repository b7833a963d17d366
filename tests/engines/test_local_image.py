"""HTML -> image and URL screenshots on the local engine, checked pixel by pixel."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.errors import InvalidOption, JobTimeout, PageLoadError
from app.core.jobs import HtmlToImage, ImageOptions, ImageType, Screenshot, WaitOptions, WaitUntil
from app.core.results import Output
from app.engines.local import LocalEngine
from tests.conftest import TestSite, close_to, image, rgb

BOX_PAGE = """<!doctype html><html><head><style>
  html, body { margin: 0; background: #fff; }
  #box { position: absolute; left: 20px; top: 30px; width: 100px; height: 50px; background: rgb(255, 0, 0); }
  #tall { position: absolute; top: 0; left: 0; width: 10px; height: 3000px; }
  #bottom { position: absolute; top: 2900px; left: 0; width: 50px; height: 50px; background: rgb(0, 0, 255); }
</style></head><body><div id="box"></div><div id="tall"></div><div id="bottom"></div></body></html>"""


def shoot(engine: LocalEngine, html: str = BOX_PAGE, **options: object) -> Output:
    return engine.submit(HtmlToImage(html, ImageOptions(**options))).result(timeout=60)  # type: ignore[arg-type]


def test_viewport_size_and_pixels(engine: LocalEngine) -> None:
    output = shoot(engine, width=400, height=300)
    assert output.media_type == "image/png"
    assert (output.width, output.height) == (400, 300)
    assert image(output.data).size == (400, 300)
    assert close_to(rgb(output.data, 70, 55), (255, 0, 0))  # inside the box
    assert close_to(rgb(output.data, 10, 10), (255, 255, 255))  # outside it


def test_device_scale_factor_doubles_the_pixels(engine: LocalEngine) -> None:
    output = shoot(engine, width=400, height=300, scale=2)
    assert (output.width, output.height) == (800, 600)
    assert close_to(rgb(output.data, 140, 110), (255, 0, 0))
    # and the next job at scale 1 is back to normal
    assert shoot(engine, width=400, height=300).width == 400


def test_full_page(engine: LocalEngine) -> None:
    output = shoot(engine, width=400, height=300, full_page=True)
    assert (output.width, output.height) == (400, 3000)
    assert close_to(rgb(output.data, 25, 2925), (0, 0, 255))


def test_element_only(engine: LocalEngine) -> None:
    output = shoot(engine, width=400, height=300, selector="#box")
    assert (output.width, output.height) == (100, 50)
    colors = image(output.data).convert("RGB").getcolors()
    assert colors is not None and len(colors) == 1 and close_to(colors[0][1], (255, 0, 0))


def test_element_that_does_not_exist(engine: LocalEngine) -> None:
    with pytest.raises(InvalidOption, match="no element matches '#missing'"):
        shoot(engine, selector="#missing")


def test_invalid_selector(engine: LocalEngine) -> None:
    with pytest.raises(InvalidOption, match="invalid CSS selector"):
        shoot(engine, selector="div[")


def test_dark_color_scheme(engine: LocalEngine, site: TestSite) -> None:
    html = (Path(__file__).parent.parent / "assets" / "dark.html").read_text()
    light = shoot(engine, html, width=200, height=100)
    dark = shoot(engine, html, width=200, height=100, dark=True)
    assert close_to(rgb(light.data, 100, 50), (255, 255, 255))
    assert close_to(rgb(dark.data, 100, 50), (0, 0, 0))
    # the emulation is not left behind for the next job
    assert close_to(rgb(shoot(engine, html, width=200, height=100).data, 100, 50), (255, 255, 255))


def test_omit_background_gives_transparency(engine: LocalEngine) -> None:
    html = '<body style="margin:0"><div style="width:50px;height:50px;background:rgb(0,0,255)"></div></body>'
    output = shoot(engine, html, width=200, height=100, omit_background=True)
    picture = image(output.data).convert("RGBA")
    assert picture.getpixel((150, 50))[3] == 0  # type: ignore[index]
    assert picture.getpixel((25, 25)) == (0, 0, 255, 255)


@pytest.mark.parametrize(("kind", "media_type"), [(ImageType.JPEG, "image/jpeg"), (ImageType.WEBP, "image/webp")])
def test_jpeg_and_webp_with_quality(engine: LocalEngine, kind: ImageType, media_type: str) -> None:
    noisy = "".join(f'<span style="color:hsl({i * 7 % 360},80%,40%)">word{i} </span>' for i in range(400))
    high = shoot(engine, noisy, width=600, height=400, type=kind, quality=95)
    low = shoot(engine, noisy, width=600, height=400, type=kind, quality=10)
    assert high.media_type == media_type and high.suggested_name.endswith(kind.extension)
    assert image(high.data).format == kind.name
    assert (high.width, high.height) == (600, 400)
    assert low.size < high.size


def test_webp_keeps_transparency(engine: LocalEngine) -> None:
    output = shoot(engine, "<p>x</p>", width=100, height=100, type=ImageType.WEBP, omit_background=True)
    assert image(output.data).convert("RGBA").getpixel((90, 90))[3] == 0  # type: ignore[index]


def test_web_font_in_an_image(engine: LocalEngine, site: TestSite) -> None:
    """The probe is 16 narrow letters: ~231 px wide in Liberation Mono, about half that in the serif fallback."""
    html = (Path(__file__).parent.parent / "assets" / "webfont-late.html").read_text()
    output = engine.submit(HtmlToImage(html, ImageOptions(selector="#probe"), base_url=site.url + "/")).result(timeout=60)
    assert output.width is not None and output.width > 200


# -- screenshots of web pages ----------------------------------------------------------------------


def screenshot(engine: LocalEngine, url: str, **options: object) -> Output:
    until = options.pop("wait_until", WaitUntil.LOAD)
    wait = options.pop("wait", WaitOptions())
    job = Screenshot(url, ImageOptions(**options), wait, until)  # type: ignore[arg-type]
    return engine.submit(job).result(timeout=60)


def test_screenshot_of_a_page(engine: LocalEngine, site: TestSite) -> None:
    output = screenshot(engine, site.url + "/page.html", width=300, height=250)
    assert (output.width, output.height) == (300, 250)
    assert close_to(rgb(output.data, 70, 55), (255, 0, 0))


@pytest.mark.parametrize("until", list(WaitUntil))
def test_screenshot_wait_until(engine: LocalEngine, site: TestSite, until: WaitUntil) -> None:
    output = screenshot(engine, site.url + "/page.html", width=300, height=250, wait_until=until)
    assert close_to(rgb(output.data, 70, 55), (255, 0, 0))


def test_lazy_images_are_scrolled_in_for_full_page_shots(engine: LocalEngine, site: TestSite) -> None:
    url = site.url + "/lazy.html"
    scrolled = screenshot(engine, url, width=800, height=600, full_page=True)
    assert scrolled.height == 7001
    assert close_to(rgb(scrolled.data, 100, 4100), (0, 200, 0)), "loading=lazy image"
    assert close_to(rgb(scrolled.data, 100, 6100), (0, 0, 255)), "IntersectionObserver image"
    unscrolled = screenshot(engine, url, width=800, height=600, full_page=True, scroll=False)
    assert not close_to(rgb(unscrolled.data, 100, 6100), (0, 0, 255)), "without scrolling it stays empty"


def test_http_error_status_fails(engine: LocalEngine, site: TestSite) -> None:
    with pytest.raises(PageLoadError, match="HTTP 404"):
        screenshot(engine, site.url + "/status/404")


def test_unreachable_page_fails(engine: LocalEngine) -> None:
    import socket

    with socket.socket() as probe:  # a port that nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(PageLoadError, match="connection was refused"):
        screenshot(engine, f"http://127.0.0.1:{port}/")


def test_slow_page_times_out(engine: LocalEngine, site: TestSite) -> None:
    job = Screenshot(site.url + "/slow/page.html?ms=5000", timeout=1.0)
    with pytest.raises(JobTimeout):
        engine.submit(job).result(timeout=60)
    assert screenshot(engine, site.url + "/page.html").width == 1280
