"""What a user gives a merge, turned into sources: page suffixes, folders, sorting, passwords."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.core.errors import InvalidOption, SourceNotFound
from app.core.jobs import MergePdfs, MergeSource
from app.core.merge_inputs import SortOrder, expand, natural_key, sort_sources, split_pages, with_passwords


def test_natural_order() -> None:
    names = ["page10.pdf", "Page2.pdf", "page1.pdf", "appendix.pdf", "page1b.pdf"]
    assert sorted(names, key=natural_key) == ["appendix.pdf", "page1.pdf", "page1b.pdf", "Page2.pdf", "page10.pdf"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("report.pdf:1-3,7,10-", ("report.pdf", "1-3,7,10-")),
        ("report.pdf", ("report.pdf", "")),
        ("C:\\docs\\a.pdf", ("C:\\docs\\a.pdf", "")),
        ("https://example.com:8443/a.pdf", ("https://example.com:8443/a.pdf", "")),
        ("https://example.com/a.pdf:2", ("https://example.com/a.pdf", "2")),
        ("weird:name.pdf", ("weird:name.pdf", "")),
    ],
)
def test_split_pages(text: str, expected: tuple[str, str]) -> None:
    assert split_pages(text) == expected


def test_a_file_really_named_with_a_colon_wins(tmp_path: Path) -> None:
    odd = tmp_path / "scan.pdf:3"
    odd.write_bytes(b"%PDF-")
    assert split_pages(str(odd)) == (str(odd), "")


def test_expand_folders_and_urls(tmp_path: Path) -> None:
    for name in ("b10.pdf", "b2.pdf", "B1.PDF", "notes.txt"):
        (tmp_path / name).write_bytes(b"%PDF-")
    (tmp_path / "sub").mkdir()
    sources = expand([str(tmp_path) + ":1", "https://example.com/x.pdf:2-3", "single.pdf"])
    assert [Path(s.location).name for s in sources[:3]] == ["B1.PDF", "b2.pdf", "b10.pdf"]
    assert {s.pages for s in sources[:3]} == {"1"}
    assert sources[3] == MergeSource("https://example.com/x.pdf", "2-3")
    assert sources[4].location == "single.pdf"
    empty = tmp_path / "sub"
    with pytest.raises(SourceNotFound, match="has no PDF files"):
        expand([str(empty)])


def test_sorting(tmp_path: Path) -> None:
    paths = []
    for age, name in enumerate(["c10.pdf", "c9.pdf", "a.pdf"]):
        path = tmp_path / name
        path.write_bytes(b"%PDF-")
        os.utime(path, (1_000_000 + age * 100, 1_000_000 + age * 100))
        paths.append(path)
    sources = [MergeSource(str(p)) for p in paths] + [MergeSource("https://example.com/b.pdf")]
    names = lambda order: [s.display_name for s in sort_sources(sources, order)]  # noqa: E731
    assert names(SortOrder.NATURAL) == ["a.pdf", "b.pdf", "c9.pdf", "c10.pdf"]
    assert names(SortOrder.NAME) == ["a.pdf", "b.pdf", "c10.pdf", "c9.pdf"]
    assert names(SortOrder.MODIFIED) == ["c10.pdf", "c9.pdf", "a.pdf", "b.pdf"]


def test_passwords_match_by_path_or_name(tmp_path: Path) -> None:
    sources = [MergeSource(str(tmp_path / "a.pdf")), MergeSource("b.pdf", "2"), MergeSource("https://x.org/c.pdf")]
    given = with_passwords(sources, {"a.pdf": "one", str(Path("b.pdf").resolve()): "two", "c.pdf": "three"})
    assert [s.password for s in given] == ["one", "two", "three"]
    assert given[1].pages == "2"
    with pytest.raises(InvalidOption, match="typo.pdf") as caught:
        with_passwords(sources, {"typo.pdf": "s3cret"})
    assert "s3cret" not in str(caught.value)


def test_merge_job_validation() -> None:
    with pytest.raises(InvalidOption, match="nothing to merge"):
        MergePdfs(())
    with pytest.raises(InvalidOption):
        MergeSource("a.pdf", "3-1")
    assert MergeSource("https://h/x/report.pdf?download=1").display_name == "report.pdf"
