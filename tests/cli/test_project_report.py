"""``bpe-desktop report``: a self-contained HTML5 file that validates, and the same
report as PDF with a page per section and the plots embedded."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import html5lib
import pypdf
import pytest

from tests.cli.support import REPO, assert_one_error_line, run


@pytest.fixture
def project(capsys, tmp_path, corpus):
    """Two trainings and an evaluation of each with a vocabulary sweep."""
    p = tmp_path / "p.bpeproj"
    gold = tmp_path / "gold.txt"
    gold.write_text("lowest\tlow est\nnewer\tnew er\nwidest\twid est\n", encoding="utf-8")
    for n, merges in ((1, 8), (2, 16)):
        model = tmp_path / f"m{n}.json"
        assert run(capsys, "train", corpus, "-o", model, "--merges", merges, "-q",
                   "--project", p)[0] == 0
        assert run(capsys, "evaluate", "-m", model, "--gold", gold, "--text", corpus,
                   "--sweep", "4", "--project", p)[0] == 0
    return p


def test_the_html_report_is_valid_html5_and_self_contained(capsys, tmp_path, project):
    out = tmp_path / "report.html"
    status, printed, err = run(capsys, "report", project, "--run", "1", "2", "3", "4",
                               "-o", out)
    assert status == 0, err
    assert printed.startswith(f"wrote {out}: 5 sections")
    text = out.read_text(encoding="utf-8")
    html5lib.HTMLParser(strict=True).parse(text)  # raises on any parse error
    assert text.startswith("<!DOCTYPE html>")
    # Offline: nothing is fetched (the only URL is the SVG namespace).
    assert re.findall(r"(?:src|href)=", text) == []
    assert set(re.findall(r"https?://[^\"' ]+", text)) == {"http://www.w3.org/2000/svg"}
    assert text.count("<section>") == 5
    # The overview plots F1 and fertility of both evaluations; each evaluation its sweep.
    assert text.count("<svg") >= 4 and "<polyline" in text
    for n in (1, 2):
        assert f"--merges {8 * n}" in text or f"--merges&#x27; {8 * n}" in text
    assert "bpe-desktop train" in text and "bpe-desktop evaluate" in text
    # Each sweep's values are also a table: one row per vocabulary size.
    from bpe_desktop.core.project import Project

    with Project(project) as p:
        sizes = {m.vocab_size for m in p.run_details(2).metrics if m.vocab_size}
    assert len(sizes) == 4
    assert all(f'<tr><td class="n">{size:,}</td>' in text for size in sizes)


def test_the_pdf_report_has_a_page_per_section_with_the_plots(tmp_path, project):
    out = tmp_path / "report.pdf"
    env = {**os.environ, "PYTHONPATH": str(REPO), "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-m", "bpe_desktop.cli", "report", str(project),
                           "--run", "1", "2", "3", "4", "-o", str(out)],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    reader = pypdf.PdfReader(out)
    texts = [" ".join(page.extract_text().split()) for page in reader.pages]
    starts = [next(i for i, t in enumerate(texts) if title in t)
              for title in ("Overview", "Run 1: train", "Run 2: evaluate", "Run 3: train",
                            "Run 4: evaluate")]
    assert starts == sorted(set(starts)), "each section starts on a page of its own"
    images = [name for page in reader.pages
              for name, obj in (page["/Resources"].get("/XObject") or {}).items()
              if obj.get_object()["/Subtype"] == "/Image"]
    # Two in the overview (F1, fertility), and each evaluation's sweep plots.
    assert len(images) >= 4


def test_unknown_runs_and_formats_are_one_line_errors(capsys, tmp_path, project):
    status, _, err = run(capsys, "report", project, "--run", "9", "-o", tmp_path / "r.html")
    assert status == 1
    assert_one_error_line(err, "no run 9")
    status, _, err = run(capsys, "report", project, "--run", "1", "-o", tmp_path / "r.doc")
    assert status == 1
    assert_one_error_line(err, ".html or .pdf")
    assert not (tmp_path / "r.html").exists()
