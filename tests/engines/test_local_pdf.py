"""HTML -> PDF on the local engine, against real Chromium; every test reads the PDF it got."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from app.core.errors import InvalidOption, JobTimeout, SourceNotFound
from app.core.jobs import HtmlToPdf, Length, Margins, MediaType, PaperFormat, PdfOptions, WaitOptions
from app.core.urls import folder_url
from app.engines.local import LocalEngine
from tests.conftest import TestSite, close_to, font_names, page_size_mm, pdf, pdf_text, rasterize


def render(engine: LocalEngine, html: str, options: PdfOptions | None = None, **kwargs: object) -> bytes:
    job = HtmlToPdf(html, options or PdfOptions(), **kwargs)  # type: ignore[arg-type]
    output = engine.submit(job).result(timeout=60)
    assert output.media_type == "application/pdf"
    return output.data


def pages_of(count: int, label: str = "Page") -> str:
    return "".join(f'<p style="break-after: page">{label} {n}</p>' for n in range(1, count + 1))


@pytest.mark.parametrize(
    ("paper", "expected"),
    [
        (PaperFormat.A4, (210.0, 297.0)),
        (PaperFormat.A3, (297.0, 420.0)),
        (PaperFormat.A5, (148.0, 210.0)),
        (PaperFormat.LETTER, (215.9, 279.4)),
        (PaperFormat.LEGAL, (215.9, 355.6)),
        (PaperFormat.TABLOID, (279.4, 431.8)),
    ],
)
def test_paper_formats_set_the_media_box(engine: LocalEngine, paper: PaperFormat, expected: tuple[float, float]) -> None:
    data = render(engine, "<p>size</p>", PdfOptions(format=paper))
    width, height = page_size_mm(data)
    assert abs(width - expected[0]) < 0.6 and abs(height - expected[1]) < 0.6


def test_landscape_swaps_the_sides(engine: LocalEngine) -> None:
    width, height = page_size_mm(render(engine, "<p>wide</p>", PdfOptions(format=PaperFormat.A4, landscape=True)))
    assert abs(width - 297) < 0.6 and abs(height - 210) < 0.6


def test_custom_width_and_height_with_units(engine: LocalEngine) -> None:
    data = render(engine, "<p>card</p>", PdfOptions(width=Length.parse("100mm"), height=Length.parse("2in")))
    width, height = page_size_mm(data)
    assert abs(width - 100) < 0.6 and abs(height - 50.8) < 0.6


def test_text_and_page_count(engine: LocalEngine) -> None:
    data = render(engine, "<h1>Quarterly report</h1>" + pages_of(3))
    text = pdf_text(data)
    assert len(text) == 3
    assert "Quarterly report" in text[0] and "Page 1" in text[0]
    assert "Page 3" in text[2]


def test_page_ranges_keep_only_those_pages(engine: LocalEngine) -> None:
    data = render(engine, pages_of(6), PdfOptions(page_ranges="2-3,5"))
    text = pdf_text(data)
    assert [t.strip() for t in text] == ["Page 2", "Page 3", "Page 5"]


def test_page_range_beyond_the_document_is_an_input_error(engine: LocalEngine) -> None:
    with pytest.raises(InvalidOption, match="beyond the last page"):
        render(engine, pages_of(2), PdfOptions(page_ranges="5-7"))


def test_header_and_footer_on_every_page(engine: LocalEngine) -> None:
    options = PdfOptions(
        header_html="<span>ACME HEADER</span>",
        footer_html='<span>Page <span class="pageNumber"></span> of <span class="totalPages"></span></span>',
    )
    text = pdf_text(render(engine, pages_of(3, "Body"), options))
    assert len(text) == 3
    for number, page in enumerate(text, start=1):
        assert "ACME HEADER" in page
        assert f"Page {number} of 3" in page
        assert f"Body {number}" in page


def test_margins_move_the_content(engine: LocalEngine) -> None:
    html = '<div style="width:100%;height:60px;background:rgb(0,0,255)"></div>'
    plain = rasterize(render(engine, html))
    moved = rasterize(render(engine, html, PdfOptions(margins=Margins.uniform(Length.parse("30mm")))))
    # 30 mm at 36 dpi is ~42 px: the top-left corner is blue without margins, white with them
    assert close_to(plain.getpixel((5, 5)), (0, 0, 255))  # type: ignore[arg-type]
    assert close_to(moved.getpixel((5, 5)), (255, 255, 255))  # type: ignore[arg-type]
    assert close_to(moved.getpixel((50, 50)), (0, 0, 255))  # type: ignore[arg-type]


def test_backgrounds_are_printed_unless_switched_off(engine: LocalEngine) -> None:
    html = "<style>html{background:rgb(0,160,0)}</style><p>green</p>"
    with_background = rasterize(render(engine, html))
    without = rasterize(render(engine, html, PdfOptions(print_background=False)))
    assert close_to(with_background.getpixel((100, 200)), (0, 160, 0))  # type: ignore[arg-type]
    assert close_to(without.getpixel((100, 200)), (255, 255, 255))  # type: ignore[arg-type]


def test_scale_shrinks_the_content(engine: LocalEngine) -> None:
    html = '<div style="width:400px;height:400px;background:rgb(255,0,0)"></div>'
    full = rasterize(render(engine, html))
    half = rasterize(render(engine, html, PdfOptions(scale=0.5)))
    red = (255, 0, 0)
    # 400 CSS px = 105.8 mm = 150 px at 36 dpi; at scale 0.5 it ends at ~75 px
    assert close_to(full.getpixel((120, 120)), red)  # type: ignore[arg-type]
    assert close_to(half.getpixel((60, 60)), red)  # type: ignore[arg-type]
    assert close_to(half.getpixel((120, 120)), (255, 255, 255))  # type: ignore[arg-type]


def test_prefer_css_page_size(engine: LocalEngine) -> None:
    html = "<style>@page { size: 120mm 80mm; }</style><p>css size</p>"
    # without the option the paper stays A4 (Chromium still takes the orientation from the CSS)
    assert sorted(page_size_mm(render(engine, html))) == pytest.approx([210, 297], abs=0.6)
    assert page_size_mm(render(engine, html, PdfOptions(prefer_css_page_size=True))) == pytest.approx((120, 80), abs=0.6)


def test_media_type_print_or_screen(engine: LocalEngine) -> None:
    html = (
        "<style>@media print{.screen{display:none}} @media screen{.print{display:none}}</style>"
        "<p class=screen>SCREEN-ONLY</p><p class=print>PRINT-ONLY</p>"
    )
    printed = pdf_text(render(engine, html))[0]
    on_screen = pdf_text(render(engine, html, PdfOptions(media=MediaType.SCREEN)))[0]
    assert "PRINT-ONLY" in printed and "SCREEN-ONLY" not in printed
    assert "SCREEN-ONLY" in on_screen and "PRINT-ONLY" not in on_screen
    # and the emulation does not stick to the page for the next job
    assert "PRINT-ONLY" in pdf_text(render(engine, html))[0]


def test_tagged_pdf_and_outline(engine: LocalEngine) -> None:
    html = "<h1>Introduction</h1><p>a</p><h2>Details</h2><p>b</p><h1>Appendix</h1>"
    plain = pdf(render(engine, html))
    assert "/StructTreeRoot" not in plain.trailer["/Root"]
    tagged = pdf(render(engine, html, PdfOptions(tagged=True)))
    assert "/StructTreeRoot" in tagged.trailer["/Root"]
    outlined = pdf(render(engine, html, PdfOptions(outline=True)))
    titles = [item.title for item in outlined.outline if not isinstance(item, list)]
    assert titles[:2] == ["Introduction", "Appendix"]


def test_internal_links_stay_internal(engine: LocalEngine, tmp_path: Path) -> None:
    html = '<a href="#part2">to part 2</a><p style="break-after:page">one</p><h2 id="part2">Part 2</h2>'
    reader = pdf(render(engine, html, base_url=folder_url(tmp_path)))
    annotations = [a.get_object() for a in reader.pages[0].get("/Annots", [])]
    assert annotations, "the link is in the PDF"
    # an internal link is a named destination, not a URI to another document
    assert all("/URI" not in (a.get("/A") or {}) for a in annotations)
    assert "part2" in {str(name).lstrip("/") for name in reader.named_destinations}


def test_waits_for_a_selector(engine: LocalEngine) -> None:
    html = (
        "<script>setTimeout(() => { const p = document.createElement('p'); p.id = 'late';"
        " p.textContent = 'ARRIVED LATE'; document.body.append(p); }, 700)</script><p>early</p>"
    )
    assert "ARRIVED LATE" not in pdf_text(render(engine, html))[0]
    waited = pdf_text(render(engine, html, wait=WaitOptions(selector="#late")))[0]
    assert "ARRIVED LATE" in waited


def test_waits_for_an_expression_and_a_delay(engine: LocalEngine) -> None:
    html = (
        "<p id=t>before</p><script>setTimeout(() => { document.getElementById('t').textContent = 'AFTER';"
        " window.ready = true; }, 500)</script>"
    )
    assert "AFTER" in pdf_text(render(engine, html, wait=WaitOptions(expression="window.ready === true")))[0]
    assert "AFTER" in pdf_text(render(engine, html, wait=WaitOptions(delay_ms=900)))[0]


def test_a_failing_wait_expression_is_reported(engine: LocalEngine) -> None:
    with pytest.raises(InvalidOption, match="wait expression failed: ReferenceError"):
        render(engine, "<p>x</p>", wait=WaitOptions(expression="no_such_thing.ready"))


def test_a_selector_that_never_appears_times_out(engine: LocalEngine) -> None:
    with pytest.raises(JobTimeout, match="#never"):
        render(engine, "<p>x</p>", wait=WaitOptions(selector="#never"), timeout=1.5)
    assert "still works" in pdf_text(render(engine, "<p>still works</p>"))[0]


def test_relative_images_resolve_against_the_base_folder(engine: LocalEngine, tmp_path: Path) -> None:
    Image.new("RGB", (50, 50), (255, 0, 255)).save(tmp_path / "logo.png")
    html = (
        '<!doctype html><html><head></head><body style="margin:0">'
        '<img src="logo.png" style="width:300px;height:300px;display:block"></body></html>'
    )
    page = rasterize(render(engine, html, base_url=folder_url(tmp_path)))
    assert close_to(page.getpixel((40, 40)), (255, 0, 255))  # type: ignore[arg-type]
    # without a base URL the relative image cannot load
    bare = rasterize(render(engine, html))
    assert not close_to(bare.getpixel((40, 40)), (255, 0, 255))  # type: ignore[arg-type]


def test_http_base_url(engine: LocalEngine, site: TestSite) -> None:
    html = '<body style="margin:0"><img src="red.png" style="width:300px;height:300px;display:block"></body>'
    page = rasterize(render(engine, html, base_url=site.url + "/"))
    assert close_to(page.getpixel((40, 40)), (255, 0, 0))  # type: ignore[arg-type]


def test_missing_base_folder_is_an_input_error(engine: LocalEngine, tmp_path: Path) -> None:
    with pytest.raises(SourceNotFound, match="does not exist"):
        render(engine, "<p>x</p>", base_url=(tmp_path / "gone").as_uri() + "/")


@pytest.mark.parametrize("page", ["webfont.html", "webfont-late.html"])
def test_web_fonts_are_awaited_and_used(engine: LocalEngine, site: TestSite, page: str) -> None:
    """A font from a (slow) web server, declared in CSS or loaded by script after the load event."""
    html = (Path(__file__).parent.parent / "assets" / page).read_text()
    data = render(engine, html, base_url=site.url + "/")
    assert any("LiberationMono" in name for name in font_names(data)), font_names(data)
    assert "Typeset in the web font" in pdf_text(data)[0]


@pytest.mark.parametrize("base", ["folder", "web"])
def test_documents_do_not_leak_into_each_other(engine: LocalEngine, site: TestSite, tmp_path: Path, base: str) -> None:
    """Same template twice: top-level const would clash in a reused realm; storage must not carry over."""
    template = (
        "<p id=out>pending</p><script>const data = {n};"
        " const seen = localStorage.getItem('seen');"
        " localStorage.setItem('seen', 'yes');"
        " document.getElementById('out').textContent = 'RUN ' + data + ' SEEN ' + seen;</script>"
    )
    base_url = folder_url(tmp_path) if base == "folder" else site.url + "/"
    for n in range(1, 6):  # more jobs than pooled pages
        text = pdf_text(render(engine, template.replace("{n}", str(n)), base_url=base_url))[0]
        assert f"RUN {n} SEEN null" in text


def test_timers_of_one_document_do_not_touch_the_next(engine: LocalEngine) -> None:
    noisy = "<p id=x>first</p><script>setInterval(() => { document.body.innerHTML = 'HIJACKED'; }, 5)</script>"
    render(engine, noisy)
    for _ in range(3):
        assert "HIJACKED" not in pdf_text(render(engine, "<p>clean document</p>"))[0]


def test_output_metadata(engine: LocalEngine, tmp_path: Path) -> None:
    output = engine.submit(HtmlToPdf(pages_of(2), name="invoice-7", base_url=folder_url(tmp_path))).result(timeout=60)
    assert output.suggested_name == "invoice-7.pdf"
    assert output.pages == 2
    assert pdf(output.data).metadata.title == "invoice-7"  # not the address of the page it was loaded in
    titled = engine.submit(HtmlToPdf("<title>Own title</title><p>x</p>", name="ignored")).result(timeout=60)
    assert pdf(titled.data).metadata.title == "Own title"


def test_cookies_do_not_carry_over_between_jobs(engine: LocalEngine, site: TestSite) -> None:
    reader = (
        "<p id=c>waiting</p><script>{before}.then(() => {{ document.getElementById('c').textContent ="
        " 'COOKIES[' + document.cookie + ']'; window.done = true; }})</script>"
    )
    setter = reader.format(before="fetch('/cookie')")
    looker = reader.format(before="Promise.resolve()")
    wait = WaitOptions(expression="window.done === true")
    base = site.url + "/"
    assert "COOKIES[visited=yes]" in pdf_text(render(engine, setter, base_url=base, wait=wait))[0]
    for _ in range(4):  # whichever pooled page the next jobs land on
        assert "COOKIES[]" in pdf_text(render(engine, looker, base_url=base, wait=wait))[0]
