import math

import pytest

from privcut import GraphInputError
from privcut.datasets import dense_gnp, planted_partition, read_edgelist
from privcut.datasets import stochastic_block_model as sbm


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


def test_the_third_column_goes_into_the_named_attribute(tmp_path):
    G = read_edgelist(write(tmp_path, "a b 0.25\nb c\n"), weight="strength")
    assert G["a"]["b"] == {"strength": 0.25} and G["b"]["c"] == {"strength": 1.0}
    with pytest.raises(TypeError, match="weight must be None or an edge attribute name"):
        read_edgelist(write(tmp_path, "a b\n"), weight=3)


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


def test_bundled_graphs_load_offline_with_provenance():
    from privcut.datasets import load, names, provenance

    assert names() == ["davis", "florentine", "karate", "les-miserables"]
    karate = load("karate")
    assert (karate.number_of_nodes(), karate.number_of_edges()) == (34, 78)
    sizes = {name: (load(name).number_of_nodes(), load(name).number_of_edges()) for name in names()}
    assert sizes["les-miserables"] == (77, 254) and sizes["florentine"] == (15, 20)
    assert sizes["davis"] == (32, 89) and load("davis").has_edge("Evelyn Jefferson", "E1")
    for name in names():
        text = provenance(name)
        assert "Source:" in text and "Licence:" in text and "NetworkX" in text
    with pytest.raises(
        ValueError, match=r"bundled graph name must be one of 'davis'.*; got 'enron'"
    ):
        load("enron")


def test_declared_nodes_survive_without_edges(tmp_path):
    G = read_edgelist(write(tmp_path, '# nodes: ["a", "z"]\na b\n'))
    assert sorted(G.nodes) == ["a", "b", "z"] and G.degree("z") == 0
    with pytest.raises(GraphInputError, match=r"edges.txt:2: '# nodes:' must be"):
        read_edgelist(write(tmp_path, "a b\n# nodes: z\n"))


def test_generators_record_their_public_groups():
    from privcut.datasets import dense_gnp, planted_partition

    G = planted_partition(4, 10, 0.9, 0.0, seed=3)
    groups = G.graph["groups"]
    assert all(groups[u] == groups[v] for u, v in G.edges())
    assert (
        dense_gnp(30, 0.5, seed=2).number_of_edges() == dense_gnp(30, 0.5, seed=2).number_of_edges()
    )


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: dense_gnp(10, 1.5), ValueError, r"p must be a finite number in \[0, 1\]"),
        (lambda: dense_gnp(10, -0.1), ValueError, r"p must be a finite number in \[0, 1\]"),
        (lambda: dense_gnp(10, math.nan), ValueError, r"p must be a finite number in \[0, 1\]"),
        (lambda: dense_gnp(-1), ValueError, "n must be an integer >= 0"),
        (lambda: sbm([5, -1], [[0.5, 0.1], [0.1, 0.5]]), ValueError, "block size .* >= 0"),
        (lambda: sbm([5, 5], [[0.5, 0.1], [0.2, 0.5]]), ValueError, "p must be symmetric"),
        (lambda: sbm([5, 5], [[0.5, 0.1]]), ValueError, "p must be a 2 x 2 matrix"),
        (lambda: sbm([5, 5], [[0.5, 1.1], [1.1, 0.5]]), ValueError, r"entry of p .*\[0, 1\]"),
        (lambda: planted_partition(2, 5, 1.5, 0.1), ValueError, r"p_in .*\[0, 1\]"),
        (lambda: planted_partition(-2, 5, 0.5, 0.1), ValueError, "groups must be .* >= 0"),
        (lambda: planted_partition(2, -5, 0.5, 0.1), ValueError, "size must be .* >= 0"),
    ],
)
def test_sweep37_f21_generators_refuse_bad_parameters_by_name(call, error, match):
    """Sweep 37 F21: dense_gnp(10, 1.5) and negative block sizes were accepted, and the
    block models raised NetworkX's own exceptions."""
    with pytest.raises(error, match=match):
        call()


def test_a_byte_order_mark_first_is_not_part_of_a_label(tmp_path):
    """Sweep 37 F5: a UTF-8 BOM (as some editors write) is dropped, not read as part of
    the first label, by every text reader."""
    from privcut.datasets import read_edge_array, read_groups, read_nodelist

    bom = "\ufeff"
    edges = write(tmp_path, f"{bom}0 1\n1 2\n")
    assert sorted(read_edgelist(edges).nodes) == ["0", "1", "2"]
    assert read_edge_array(edges).nodes == ("0", "1", "2")
    nodes = tmp_path / "nodes.txt"
    nodes.write_text(f"{bom}0\n1\n", encoding="utf-8")
    assert read_nodelist(nodes) == ["0", "1"]
    groups = tmp_path / "groups.txt"
    groups.write_text(f"{bom}0 a\n1 b\n", encoding="utf-8")
    assert read_groups(groups) == {"0": "a", "1": "b"}


@pytest.mark.parametrize(
    ("text", "where"),
    [("u,v\n0,1\n1,2\n", ":1: 'u,v'"), ("# SNAP\n\nu v weight\n0 1 1\n", ":3: 'u v weight'")],
)
def test_sweep37_a_header_in_the_help_s_notation_is_refused(tmp_path, text, where):
    """Sweep 37 F23: a first line ``u,v`` (the help's notation) was read as an edge
    between nodes u and v; both edge readers refuse it, naming the line and the fixes."""
    from privcut.datasets import read_edge_array

    path = write(tmp_path, text)
    for reader in (read_edgelist, read_edge_array):
        with pytest.raises(GraphInputError, match="looks like a header") as error:
            reader(path)
        assert f"{path}{where}" in str(error.value) and "comment ('# u" in str(error.value)
        assert '"u","v"' in str(error.value)


def test_sweep37_the_edge_between_u_and_v_reads_quoted_or_later(tmp_path):
    from privcut.datasets import read_edge_array

    for text in ('"u","v"\n0,1\n', "# u v\n0 1\nu v\n", "0,1\nu,v\n"):
        path = write(tmp_path, text)
        assert sorted(read_edgelist(path).nodes) == ["0", "1", "u", "v"]
        assert read_edge_array(path).nodes == ("0", "1", "u", "v")


def test_sweep37_a_byte_order_mark_further_on_is_refused(tmp_path):
    """Sweep 37 F5 (left over): a BOM inside a file (two files joined) stayed in a label;
    every text reader refuses it, naming the line."""
    from privcut.datasets import read_edge_array, read_groups, read_nodelist

    bom = "\ufeff"
    cases = [
        (read_edgelist, f"{bom}0 1\n1 2\n{bom}2 3\n"),
        (read_edge_array, f"{bom}0 1\n1 2\n{bom}2 3\n"),
        (read_edge_array, f"0 1\n1 2\n2 {bom}3\n"),
        (read_nodelist, f"0\n1\n{bom}2\n"),
        (read_groups, f"0 a\n1 a\n{bom}2 b\n"),
    ]
    for reader, text in cases:
        path = write(tmp_path, text)
        with pytest.raises(GraphInputError, match="byte order mark") as error:
            reader(path)
        assert f"{path}:3:" in str(error.value) and "remove it" in str(error.value)
