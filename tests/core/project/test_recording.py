"""Recording a run: inserted as running, completed as finished, cancelled or failed with
what it produced; corpus files hashed once per size and modification time."""

from __future__ import annotations

import hashlib
import os

import pytest

from bpe_desktop.core.errors import TrainingCancelled
from bpe_desktop.core.project import Metric, Project, recorded_run
from bpe_desktop.core.project import store as store_module
from bpe_desktop.core.project.metrics import evaluation_metrics, training_metrics


@pytest.fixture
def project(tmp_path):
    with Project(tmp_path / "p.bpeproj") as p:
        yield p


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text("low lower newest widest\nlow low newer\n", encoding="utf-8")
    return path


def test_a_finished_run_keeps_everything_it_was_given(project, corpus):
    with recorded_run(project, "train", config={"merges": 5}, preset="gpt2",
                      command={"argv": ["train", "x"], "cwd": "/"},
                      inputs=[("corpus", str(corpus))]) as run:
        status_inside = project.run_details(run.id).summary.status
        run.add_metrics([Metric("vocab_size", 30), Metric("f1", 0.5, "gold.txt")])
        run.log("done")
    d = project.run_details(run.id)
    assert status_inside == "running"
    assert d.summary.status == "finished" and d.summary.preset == "gpt2"
    assert d.config == {"merges": 5} and d.command == {"argv": ["train", "x"], "cwd": "/"}
    assert d.summary.vocab_size == 30 and d.summary.f1 == 0.5 and d.log == "done"
    assert d.summary.duration is not None and d.summary.duration >= 0
    assert d.app_version and d.engine_version
    [recorded] = d.inputs
    assert recorded.path == str(corpus) and recorded.size == corpus.stat().st_size
    assert recorded.sha256 == hashlib.sha256(corpus.read_bytes()).hexdigest()
    assert d.metrics == (Metric("vocab_size", 30), Metric("f1", 0.5, "gold.txt"))


def test_a_failed_run_keeps_its_message_and_no_results(project):
    with pytest.raises(ValueError):
        with recorded_run(project, "evaluate") as run:
            run.add_metrics([Metric("f1", 0.5)])
            raise ValueError("gold.txt line 3: empty segmentation")
    d = project.run_details(run.id)
    assert d.summary.status == "failed"
    assert d.summary.message == "gold.txt line 3: empty segmentation"
    assert d.metrics == ()


@pytest.mark.parametrize("stop", [TrainingCancelled("cancelled"), KeyboardInterrupt()])
def test_a_cancelled_or_interrupted_run_is_cancelled(project, stop):
    with pytest.raises(type(stop)):
        with recorded_run(project, "train") as run:
            raise stop
    assert project.run_details(run.id).summary.status == "cancelled"


def test_a_corpus_is_hashed_once_per_size_and_time(project, corpus, monkeypatch):
    hashed = []
    real = store_module.sha256_of
    monkeypatch.setattr(store_module, "sha256_of", lambda p: hashed.append(p) or real(p))
    for _ in range(3):
        with recorded_run(project, "count", inputs=[("corpus", str(corpus))]):
            pass
    assert len(hashed) == 1
    corpus.write_text("changed\n", encoding="utf-8")
    os.utime(corpus, ns=(1, 1))
    with recorded_run(project, "count", inputs=[("corpus", str(corpus))]) as run:
        pass
    assert len(hashed) == 2
    assert project.run_details(run.id).inputs[0].sha256 == hashlib.sha256(b"changed\n").hexdigest()


def test_training_metrics_are_the_models_numbers(tmp_path, corpus):
    from bpe_desktop.core import Corpus, TrainConfig, train

    result = train(Corpus.from_files([str(corpus)]), TrainConfig(merges=4))
    rows = {m.metric: m.value for m in training_metrics(result.model, dict(result.timings))}
    assert rows["merges"] == 4 and rows["vocab_size"] == result.model.vocab_size
    assert rows["total_words"] == 7 and rows["distinct_words"] == 5  # counted by hand


def test_evaluation_metrics_hold_every_gold_file_and_sweep_point(tmp_path, corpus):
    """Hand-checked: "lowest" is cut low|est by a model whose merges make "low" and
    "est"; gold low|est gives precision = recall = F1 = 1."""
    from bpe_desktop.core import Corpus, TrainConfig, train
    from bpe_desktop.core.evaluation import EvaluationRequest, evaluate, read_gold

    gold = tmp_path / "gold.txt"
    gold.write_text("lowest\tlow est\n", encoding="utf-8")
    text = Corpus.from_word_counts([("low", 10), ("est", 10), ("lowest", 1)])
    model = train(text, TrainConfig(merges=4)).model
    report = evaluate(model, EvaluationRequest(gold=[read_gold(str(gold))],
                                               text_files=[str(corpus)], sweep=3))
    rows = evaluation_metrics(report)
    full = {(m.metric, m.source): m.value for m in rows if m.vocab_size is None}
    assert full[("f1", "gold.txt")] == report.morphology["gold.txt"].f1
    assert full[("fertility", "text")] == report.text.fertility
    assert full[("vocab_size", "")] == model.vocab_size
    sizes = sorted({m.vocab_size for m in rows if m.vocab_size is not None})
    assert sizes == sorted(p.vocab_size for p in report.sweep)
    assert len(sizes) == 3


def test_the_history_columns_of_a_run(project):
    """F1 is the whole model's mean over gold files ((0.5 + 0.8) / 2), not a sweep
    point's; a comparison's numbers belong to several models, so its columns stay empty."""
    with recorded_run(project, "evaluate") as run:
        run.add_metrics([Metric("vocab_size", 500), Metric("f1", 0.5, "a.tsv"),
                         Metric("f1", 0.8, "b.tsv"), Metric("f1", 0.1, "a.tsv", 100),
                         Metric("fertility", 1.5, "text")])
    s = project.run_details(run.id).summary
    assert (s.vocab_size, s.f1, s.fertility) == (500, pytest.approx(0.65), 1.5)
    with recorded_run(project, "compare") as run:
        run.add_metrics([Metric("vocab_size", 500, "m1"), Metric("fertility", 1.2, "m1")])
    s = project.run_details(run.id).summary
    assert (s.vocab_size, s.f1, s.fertility) == (None, None, None)
