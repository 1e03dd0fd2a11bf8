"""``privcut synthesize --private-communities`` (issue 18): the partition bought with a
share of epsilon, written atomically with the release; bad options refused before any
data is read or any file written, in one line without a traceback."""

import csv
import json

import pytest

from privcut.cli import main
from privcut.datasets import planted_partition, read_edgelist


def write_graph(tmp_path):
    G = planted_partition(3, 10, 0.6, 0.02, seed=1)
    edges = tmp_path / "g.txt"
    edges.write_text("".join(f"{u} {v}\n" for u, v in G.edges()))
    return G, edges


def test_private_communities_written_with_the_release(tmp_path, capsys):
    G, edges = write_graph(tmp_path)
    output, report, found = tmp_path / "h.txt", tmp_path / "h.json", tmp_path / "c.tsv"
    command = ["synthesize", str(edges), "--epsilon", "2", "--seed", "0", "-o", str(output)]
    extra = ["--private-communities", "--community-share", "0.3", "--communities-out", str(found)]
    assert main([*command, "--report", str(report), *extra]) == 0
    details = json.loads(report.read_text())
    names = [m["name"] for m in details["measurements"]]
    assert names[:3] == [
        "communities: degrees",
        "communities: sweep",
        "communities: edge-count",
    ]
    assert details["communities"]["share"] == 0.3 and details["epsilon"] == 2.0
    with found.open() as lines:
        rows = list(csv.reader(lines, delimiter="\t"))
    assert rows[0] == ["# node", "community"]
    labels = {node: int(label) for node, label in rows[1:]}
    assert set(labels) == {str(v) for v in G}
    assert len(set(labels.values())) == details["communities"]["communities"]
    assert "private communities released" in capsys.readouterr().err
    assert read_edgelist(output).number_of_edges() > 0


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--private-communities", "--community-share", "1.5"], "--community-share: share"),
        (["--private-communities", "--community-share", "0"], "--community-share: share"),
        (["--community-share", "0.3"], "--community-share belongs to --private-communities"),
        (
            ["--no-private-communities", "--communities-out", "c.tsv"],
            "--communities-out belongs to --private-communities",
        ),
        (["--private-communities", "--no-private-communities"], "exclude each other"),
        (["--private-communities", "--groups", "groups.txt"], "exclude each other"),
        (["--private-communities", "--weight", "weight"], "0/1 (its communities' noise"),
        (["--private-communities", "--measurements", "edge-count"], "add blocks to --measur"),
        (["--private-communities", "--communities-out", "no/c.tsv"], "does not exist"),
        (["--communities-out", "c.tsv"], "this release buys no communities"),  # 30 nodes
        (["--private-communities", "--communities-out", "h.txt"], "is the same file as --output"),
        (["--report", "./h.txt"], "is the same file as --output"),
        (
            ["--communities-out", "c.tsv", "--method", "dense"],
            "this release buys no communities",
        ),
    ],
)
def test_bad_options_refused_before_writing(tmp_path, capsys, monkeypatch, extra, message):
    monkeypatch.chdir(tmp_path)
    _, edges = write_graph(tmp_path)
    (tmp_path / "groups.txt").write_text("".join(f"{v} 0\n" for v in range(30)))
    output = tmp_path / "h.txt"
    with pytest.raises(SystemExit) as exit_info:
        main(["synthesize", str(edges), "--epsilon", "1", "-o", str(output), *extra])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2, err
    assert message in err and "Traceback" not in err
    assert not output.exists() and not (tmp_path / "c.tsv").exists()


@pytest.mark.parametrize("epsilon", ["4", "0.5"])
def test_auto_decision_writes_communities_only_when_bought(tmp_path, capsys, epsilon):
    # 1,000 nodes, average degree about 11: epsilon 4 buys (about 45 >= 12), 0.5 does not
    # (about 5.6); the file is written either way (a header alone when not bought), so a
    # file from an earlier release never stands for this one
    G = planted_partition(10, 100, 0.1, 0.002, seed=1)
    edges = tmp_path / "g.txt"
    edges.write_text("".join(f"{u} {v}\n" for u, v in G.edges()))
    output, report, found = tmp_path / "h.txt", tmp_path / "h.json", tmp_path / "c.tsv"
    found.write_text("stale\tpartition\n")
    command = ["synthesize", str(edges), "--epsilon", epsilon, "--seed", "0", "-o", str(output)]
    extra = ["--method", "sparse", "--report", str(report), "--communities-out", str(found)]
    assert main([*command, *extra]) == 0
    decision = json.loads(report.read_text())["groups_decision"]
    err = capsys.readouterr().err
    rows = [line for line in found.read_text().splitlines() if not line.startswith("#")]
    assert decision["bought"] == (epsilon == "4") == (len(rows) == 1000)
    assert decision["bought"] or rows == []
    assert ("private communities bought" in err) == decision["bought"]
    never = ["--method", "sparse", "--report", str(report), "--no-private-communities"]
    assert main([*command, *never]) == 0
    assert json.loads(report.read_text())["groups_decision"] is None
