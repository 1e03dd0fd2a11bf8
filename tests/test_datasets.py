import pytest

from privcut import GraphInputError
from privcut.datasets import read_edgelist


def write(tmp_path, text, name="edges.txt"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_reads_snap_and_csv_lists(tmp_path):
    snap = read_edgelist(write(tmp_path, "# FromNodeId ToNodeId\n1\t2\n2 3\n\n"))
    csv = read_edgelist(write(tmp_path, "a,b,0.5\nb,c\n", "edges.csv"))
    assert sorted(snap.edges()) == [("1", "2"), ("2", "3")]
    assert csv["a"]["b"]["weight"] == 0.5 and csv["b"]["c"]["weight"] == 1.0
    assert read_edgelist(write(tmp_path, "1 2\n2 1\n"), directed=True).number_of_edges() == 2


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1 2 3 4\n", "expected 'u v'"),
        ("1 1\n", "self-loop"),
        ("1 2\n2 1\n", "duplicate"),
        ("1 2 x\n", "not a number"),
        ("1 2 1.5\n", "outside"),
        ("1,\n", "expected 'u v'"),
    ],
)
def test_malformed_lines_name_the_line(tmp_path, text, message):
    with pytest.raises(GraphInputError, match=f"edges.txt:\\d+: .*{message}"):
        read_edgelist(write(tmp_path, text))
