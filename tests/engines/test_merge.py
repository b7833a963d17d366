"""Merging PDFs on the local engine: order, pages, bookmarks, internal links, passwords, damage, forms, URLs.

Inputs are made the way users make them: reports rendered by Chromium from one template (so every file
has the same destination names), encrypted files written by pypdf, a form written with pikepdf.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Iterator
from concurrent.futures import CancelledError
from pathlib import Path

import pikepdf
import pytest
from pypdf import PdfReader, PdfWriter

from app.core.engine import Progress
from app.core.errors import InvalidOption, JobTimeout, PageLoadError, PdfPasswordError, SourceNotFound, UnreadablePdf
from app.core.jobs import BookmarkMode, MergePdfs, MergeSource
from app.engines.local import LocalEngine, LocalEngineConfig
from tests.conftest import SECTIONS, TestSite, pdf_text


def merge(engine: LocalEngine, *sources: MergeSource | Path | str, **options: object) -> bytes:
    items = tuple(s if isinstance(s, MergeSource) else MergeSource(str(s)) for s in sources)
    output = engine.submit(MergePdfs(items, **options)).result(timeout=120)  # type: ignore[arg-type]
    assert output.media_type == "application/pdf"
    return output.data


def page_texts(data: bytes) -> list[str]:
    return [" ".join(text.split()) for text in pdf_text(data)]


def outline(data: bytes) -> list[tuple[int, str, int]]:
    """(depth, title, page index) of every bookmark, in order."""
    reader = PdfReader(io.BytesIO(data))
    found: list[tuple[int, str, int]] = []

    def walk(items: list, depth: int) -> None:  # type: ignore[type-arg]
        for item in items:
            if isinstance(item, list):
                walk(item, depth + 1)
            else:
                found.append((depth, item.title, reader.get_destination_page_number(item)))

    walk(reader.outline, 0)
    return found


def link_targets(data: bytes) -> list[tuple[int, int]]:
    """(page the link is on, page it lands on) for every internal link."""
    reader = PdfReader(io.BytesIO(data))
    page_numbers = {page.indirect_reference.idnum: i for i, page in enumerate(reader.pages)}  # type: ignore[union-attr]
    named = reader.named_destinations
    targets = []
    for i, page in enumerate(reader.pages):
        for ref in page.get("/Annots", []):
            annotation = ref.get_object()
            destination = annotation.get("/Dest")
            if destination is None and "/A" in annotation and annotation["/A"].get("/S") == "/GoTo":
                destination = annotation["/A"]["/D"]
            if destination is None:
                continue
            if isinstance(destination, str):
                targets.append((i, reader.get_destination_page_number(named[destination])))
            else:
                targets.append((i, page_numbers[destination[0].idnum]))
    return targets


# -- order, pages, metadata ------------------------------------------------------------------------


def test_order_is_as_given(engine: LocalEngine, reports: list[Path]) -> None:
    texts = page_texts(merge(engine, reports[2], reports[0], reports[1]))
    assert len(texts) == 3 * (SECTIONS + 1)
    assert [t.split(" Go to")[0] for t in texts[:: SECTIONS + 1]] == ["Report 3", "Report 1", "Report 2"]


def test_page_ranges_in_the_order_written(engine: LocalEngine, reports: list[Path]) -> None:
    data = merge(
        engine,
        MergeSource(str(reports[0]), "3-4"),
        MergeSource(str(reports[1]), "4,1"),
        MergeSource(str(reports[2]), "3-"),
        MergeSource(str(reports[0]), "-1"),
    )
    texts = page_texts(data)
    assert [t[:27] for t in texts] == [
        "Section 2 of report 1 Back ",
        "Section 3 of report 1 Back ",
        "Section 3 of report 2 Back ",
        "Report 2 Go to section 1 Go",
        "Section 2 of report 3 Back ",
        "Section 3 of report 3 Back ",
        "Report 1 Go to section 1 Go",
    ]


def test_a_range_beyond_the_last_page(engine: LocalEngine, reports: list[Path]) -> None:
    with pytest.raises(InvalidOption, match="report1.pdf has 4 pages; page 9"):
        merge(engine, MergeSource(str(reports[0]), "2-9"))


def test_metadata_and_untouched_inputs(engine: LocalEngine, reports: list[Path]) -> None:
    before = [hashlib.sha256(p.read_bytes()).hexdigest() for p in reports]
    data = merge(engine, *reports, title="Annual reports")
    info = PdfReader(io.BytesIO(data)).metadata
    assert info is not None and info.title == "Annual reports"
    assert info.producer is not None and info.producer.startswith("Pressroom")
    assert [hashlib.sha256(p.read_bytes()).hexdigest() for p in reports] == before


# -- bookmarks and links ---------------------------------------------------------------------------


def test_bookmarks_keep(engine: LocalEngine, reports: list[Path]) -> None:
    marks = outline(merge(engine, reports[1], reports[0]))
    expected = []
    for start, n in ((0, 2), (4, 1)):
        expected.append((0, f"Report {n}", start))
        expected += [(1, f"Section {k} of report {n}", start + k) for k in range(1, SECTIONS + 1)]
    assert marks == expected


def test_bookmarks_per_file(engine: LocalEngine, reports: list[Path], tmp_path: Path) -> None:
    untitled = tmp_path / "untitled.pdf"
    with pikepdf.open(reports[2]) as pdf:  # no title: the entry is named after the file
        del pdf.trailer.Info
        pdf.save(untitled)
    marks = outline(merge(engine, reports[0], untitled, bookmarks=BookmarkMode.PER_FILE))
    top = [(title, page) for depth, title, page in marks if depth == 0]
    assert top == [("Report 1", 0), ("untitled.pdf", 4)]
    assert (2, "Section 3 of report 1", 3) in marks and (2, "Section 1 of report 3", 5) in marks


def test_bookmarks_none(engine: LocalEngine, reports: list[Path]) -> None:
    assert outline(merge(engine, *reports, bookmarks=BookmarkMode.NONE)) == []


def test_bookmarks_of_left_out_pages_are_dropped(engine: LocalEngine, reports: list[Path]) -> None:
    marks = outline(merge(engine, MergeSource(str(reports[0]), "1,3")))
    assert marks == [(0, "Report 1", 0), (1, "Section 2 of report 1", 1)]


def test_internal_links_land_in_their_own_document(engine: LocalEngine, reports: list[Path]) -> None:
    """Same names in every file (#top, #s1...): a plain append would send the third file's links into the first."""
    data = merge(engine, *reports)
    texts = page_texts(data)
    targets = link_targets(data)
    assert len(targets) == 3 * (SECTIONS + SECTIONS)  # a table of contents and a "back" link per section
    for source_page, target_page in targets:
        document = source_page // (SECTIONS + 1)
        assert target_page // (SECTIONS + 1) == document, (source_page, target_page)
    # and on the right page: "Go to section k" lands on "Section k of report n"
    for source_page, target_page in targets:
        if source_page % (SECTIONS + 1) == 0:
            assert texts[target_page].startswith("Section ")
        else:
            assert texts[target_page].startswith(f"Report {source_page // (SECTIONS + 1) + 1}")


def test_links_to_left_out_pages_go_nowhere(engine: LocalEngine, reports: list[Path]) -> None:
    data = merge(engine, MergeSource(str(reports[0]), "1-2"))
    targets = link_targets(data)
    assert sorted(targets) == [(0, 1), (1, 0)]  # section 1 and back; the links to sections 2 and 3 are gone
    reader = PdfReader(io.BytesIO(data))
    links = [a for page in reader.pages for a in (r.get_object() for r in page.get("/Annots", [])) if a["/Subtype"] == "/Link"]
    assert len(links) == 2  # removed, not left behind as links to nowhere (viewers complain about those)


# -- encrypted, damaged and odd inputs -------------------------------------------------------------


@pytest.fixture(scope="module")
def encrypted(reports: list[Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("encrypted")
    made = {}
    for algorithm, user in (("RC4-128", "user-rc4"), ("AES-256", "user-aes"), ("AES-128", "")):
        writer = PdfWriter(clone_from=str(reports[0]))
        writer.encrypt(user_password=user, owner_password="owner-secret", algorithm=algorithm)
        path = folder / f"{algorithm.lower()}.pdf"
        writer.write(path)
        made[algorithm] = path
    return made


@pytest.mark.parametrize(("algorithm", "password"), [("RC4-128", "user-rc4"), ("AES-256", "user-aes")])
def test_encrypted_inputs_open_with_their_password(
    engine: LocalEngine, encrypted: dict[str, Path], algorithm: str, password: str
) -> None:
    path = encrypted[algorithm]
    with pytest.raises(PdfPasswordError, match=f"{path.name} is encrypted"):
        merge(engine, path)
    with pytest.raises(PdfPasswordError, match="does not open it"):
        merge(engine, MergeSource(str(path), password="wrong"))
    texts = page_texts(merge(engine, MergeSource(str(path), password=password), encrypted["AES-128"]))
    assert len(texts) == 8 and texts[0].startswith("Report 1") and texts[4].startswith("Report 1")


def test_empty_user_password_opens_without_one(engine: LocalEngine, encrypted: dict[str, Path]) -> None:
    assert len(page_texts(merge(engine, encrypted["AES-128"]))) == SECTIONS + 1


def test_password_never_shows(encrypted: dict[str, Path]) -> None:
    source = MergeSource(str(encrypted["RC4-128"]), password="user-rc4")
    assert "user-rc4" not in repr(source) and "user-rc4" not in repr(MergePdfs((source,)))


def test_damaged_inputs(engine: LocalEngine, reports: list[Path], tmp_path: Path) -> None:
    data = reports[0].read_bytes()
    xref_at = data.rfind(b"startxref")
    repairable = tmp_path / "moved-xref.pdf"
    repairable.write_bytes(data[:xref_at] + b"startxref\n999\n%%EOF\n")
    output = engine.submit(MergePdfs((MergeSource(str(repairable)), MergeSource(str(reports[1]))))).result(timeout=60)
    assert len(page_texts(output.data)) == 8
    assert any("moved-xref.pdf was damaged and has been repaired" in w for w in output.warnings)

    truncated = tmp_path / "truncated.pdf"
    truncated.write_bytes(data[:2000])
    with pytest.raises(UnreadablePdf, match="truncated.pdf is damaged beyond repair"):
        merge(engine, truncated)
    not_pdf = tmp_path / "page.pdf"
    not_pdf.write_text("<html>an HTML page saved with the wrong name</html>")
    with pytest.raises(UnreadablePdf, match="page.pdf is not a PDF file"):
        merge(engine, not_pdf)
    with pytest.raises(SourceNotFound, match="missing.pdf: no such file"):
        merge(engine, reports[0], tmp_path / "missing.pdf")


def test_every_bad_input_is_named_at_once(engine: LocalEngine, reports: list[Path], tmp_path: Path) -> None:
    bad = tmp_path / "bad.pdf"
    bad.write_text("nope")
    with pytest.raises(InvalidOption) as caught:
        merge(engine, tmp_path / "gone.pdf", reports[0], bad)
    assert "2 inputs cannot be used" in str(caught.value)
    assert "gone.pdf: no such file" in str(caught.value) and "bad.pdf is not a PDF file" in str(caught.value)


def _form(path: Path, value: str) -> Path:
    pdf = pikepdf.new()
    pdf.add_blank_page(page_size=(300, 200))
    field = pdf.make_indirect(
        pikepdf.Dictionary(
            Type=pikepdf.Name.Annot,
            Subtype=pikepdf.Name.Widget,
            FT=pikepdf.Name.Tx,
            T=pikepdf.String("customer"),
            V=pikepdf.String(value),
            Rect=[20, 80, 280, 110],
            F=4,
            P=pdf.pages[0].obj,
        )
    )
    pdf.pages[0].obj.Annots = pdf.make_indirect(pikepdf.Array([field]))
    pdf.Root.AcroForm = pikepdf.Dictionary(Fields=pikepdf.Array([field]), NeedAppearances=True)
    pdf.save(path)
    return path


def test_form_fields_survive(engine: LocalEngine, reports: list[Path], tmp_path: Path) -> None:
    alice, bob = _form(tmp_path / "alice.pdf", "Alice"), _form(tmp_path / "bob.pdf", "Bob")
    data = merge(engine, alice, reports[0], bob)
    fields = PdfReader(io.BytesIO(data)).get_fields()
    assert fields is not None
    values = sorted(str(field.get("/V")) for field in fields.values())
    assert values == ["Alice", "Bob"]
    assert len(fields) == 2, "clashing field names are renamed, not merged into one field"


# -- URLs ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def served(site: TestSite, reports: list[Path]) -> Iterator[str]:
    for path in reports:
        (site.directory / path.name).write_bytes(path.read_bytes())
    yield site.url


def test_merge_from_urls_and_files(engine: LocalEngine, served: str, reports: list[Path]) -> None:
    texts = page_texts(merge(engine, f"{served}/report2.pdf", reports[0], MergeSource(f"{served}/report3.pdf", "1")))
    assert [t.split(" Go to")[0] for t in (texts[0], texts[4], texts[8])] == ["Report 2", "Report 1", "Report 3"]
    assert len(texts) == 9


def test_progress_of_a_merge(engine: LocalEngine, served: str, reports: list[Path]) -> None:
    """Each input reported as it is downloaded, read and copied, then the writing; the bar only moves forward."""
    steps: list[Progress] = []
    job = MergePdfs((MergeSource(f"{served}/report2.pdf"), MergeSource(str(reports[0])), MergeSource(f"{served}/report3.pdf")))
    output = engine.submit(job, progress=steps.append).result(timeout=60)
    assert output.pages == 12
    fractions = [step.fraction for step in steps]
    assert fractions == sorted(fractions) and fractions[0] >= 0 and fractions[-1] == 1.0
    texts = [step.text for step in steps]
    downloads = [t for t in texts if t.startswith("downloaded")]
    assert sorted(downloads) in (  # the two download at once: either may finish first
        ["downloaded 1 of 2 (report2.pdf)", "downloaded 2 of 2 (report3.pdf)"],
        ["downloaded 1 of 2 (report3.pdf)", "downloaded 2 of 2 (report2.pdf)"],
    )
    assert [t for t in texts if t.startswith(("reading", "copying"))] == [
        "reading report2.pdf (1 of 3)", "reading report1.pdf (2 of 3)", "reading report3.pdf (3 of 3)",
        "copying the pages of report2.pdf (1 of 3)", "copying the pages of report1.pdf (2 of 3)",
        "copying the pages of report3.pdf (3 of 3)",
    ]  # fmt: skip
    assert texts[-1] == "writing the merged PDF"
    assert max(f for f, t in zip(fractions, texts, strict=True) if t.startswith("downloaded")) <= 0.4 + 1e-9


def test_failing_urls_are_each_named(engine: LocalEngine, served: str) -> None:
    with pytest.raises(PageLoadError) as caught:
        merge(engine, f"{served}/report1.pdf", f"{served}/status/404", f"{served}/status/500")
    message = str(caught.value)
    assert "2 of 3 downloads failed" in message
    assert f"{served}/status/404 answered HTTP 404" in message and "HTTP 500" in message
    with pytest.raises(UnreadablePdf, match="is not a PDF"):
        merge(engine, f"{served}/page.html")


def test_unreachable_url(engine: LocalEngine) -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(PageLoadError, match="connection was refused"):
        merge(engine, f"http://127.0.0.1:{port}/x.pdf")


def test_download_limits(served: str) -> None:
    with LocalEngine(LocalEngineConfig(download_limit_mb=0, download_timeout=0.5)) as small:
        with pytest.raises(InvalidOption, match="limit"):
            merge(small, f"{served}/report1.pdf")
        with pytest.raises(JobTimeout, match="did not answer within 0.5 s"):
            merge(small, f"{served}/slow/report1.pdf?ms=3000")


def test_cancel_stops_a_merge(engine: LocalEngine, served: str, reports: list[Path]) -> None:
    import time

    future = engine.submit(MergePdfs((MergeSource(f"{served}/slow/report1.pdf?ms=4000"), MergeSource(str(reports[0])))))
    time.sleep(0.5)
    assert future.cancel()
    with pytest.raises(CancelledError):
        future.result()
    assert len(page_texts(merge(engine, reports[0]))) == SECTIONS + 1
