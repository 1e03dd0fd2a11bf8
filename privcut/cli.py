"""The ``privcut`` command line."""

from __future__ import annotations

import argparse
import contextlib
import csv
import errno
import io
import json
import logging
import math
import os
import select
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO, NamedTuple, NoReturn

import privcut
from privcut.files import PartialReplaceError, ReplaceTogether, check_replaceable

# Only light modules above: NumPy, SciPy, NetworkX and privcut's graph code are imported
# by the commands, inside main's handling of Ctrl-C (sweep 37 F13: a Ctrl-C during the
# ~1.5 s of those imports printed a traceback), and --help and --version do not wait
# for them.

CUT_STRATEGIES = ("per-query", "workload", "noisy-graph", "blocks", "optimized")
"""``cuts --strategy`` choices besides ``auto``: :data:`privcut.graph.workloads.STRATEGIES`,
spelled out to keep the parser light (a test checks they agree)."""

MECHANISMS = (
    ("synthetic_graph", "privcut", "synthetic graph, all cuts close; (epsilon, 0)"),
    ("noisy_graph", "privcut", "randomized response on every vertex pair; (epsilon, 0)"),
    ("answer_cuts", "privcut", "a workload of cut queries, optimized strategies"),
    ("laplace", "privcut.privacy", "raw continuous Laplace draws; not to add to data (Noise)"),
    ("gaussian", "privcut.privacy", "raw continuous Gaussian draws; not to add to data (Noise)"),
    ("discrete_laplace", "privcut.privacy", "integer Laplace noise; (epsilon, 0)-DP for counts"),
    ("discrete_gaussian", "privcut.privacy", "integer Gaussian noise (Canonne-Kamath-Steinke)"),
    ("exponential_mechanism", "privcut.privacy", "private selection (McSherry-Talwar)"),
    ("laplace_mechanism", "privcut.linear", "linear queries, (epsilon, 0)"),
    ("gaussian_mechanism", "privcut.linear", "linear queries, (epsilon, delta)"),
    ("factorization_mechanism", "privcut.linear", "matrix mechanism, optimized strategies"),
    ("projection_mechanism", "privcut.linear", "Gaussian noise projected onto consistency"),
    ("knorm_mechanism", "privcut.linear", "K-norm mechanism (Hardt-Talwar), (epsilon, 0)"),
    ("mwem", "privcut.linear", "multiplicative weights + exponential mechanism"),
    ("small_db", "privcut.linear", "exponential mechanism over small databases"),
)
"""The mechanisms privcut provides so far: (name, module, what it guarantees)."""

PACKAGE = Path(privcut.__file__).resolve().parent
"""privcut's folder: errors raised from code in it are privcut's own."""


def _demo(arguments: argparse.Namespace) -> int:
    from privcut.datasets import load
    from privcut.evaluate import max_cut_error
    from privcut.privacy import check_epsilon

    epsilon = check_epsilon(arguments.epsilon)
    _line(f"privcut {privcut.__version__}")
    _line("\nMechanisms available:")
    for name, module, claim in MECHANISMS:
        _line(f"  {module + '.' + name:<40} {claim}")

    karate = load("karate")  # bundled: friendships, without interaction counts
    n, m = karate.number_of_nodes(), karate.number_of_edges()
    _line(
        f"\nReleasing a synthetic graph of Zachary's karate club ({n} members, {m} "
        f"friendships) at epsilon = {epsilon} (the default measurements='auto'):"
    )
    start = time.perf_counter()  # timed here: releases carry no timings
    H = privcut.synthetic_graph(karate, epsilon, rng=arguments.seed)
    seconds = time.perf_counter() - start
    report = H.graph["privcut"]
    _line(
        f"  guarantee: {_dp(report)} for edge-level neighbours (one friendship added or "
        "removed); the node set is public"
    )
    _line(f"  budget split without looking at the data: {_shares(report)}")
    _line(
        f"  synthetic graph: {H.number_of_edges()} edges, oracle {report['oracle']}, "
        f"{report['solver']['cuts']} cut constraints, {seconds:.2f} s"
    )
    _line(
        f"  claimed: every cut |G(S,T) - H(S,T)| <= {report['cut_error_bound']:.1f} with "
        f"probability {1 - report['beta']:g}; by workload class:"
    )
    for line in _bound_lines(report, "    "):
        _line(line)
    measured = max_cut_error(karate, H, rng=arguments.seed)
    _line(
        f"  measured (reads the private graph, for this demo only): the worst cut error "
        f"lies in [{measured.lower:.1f}, {measured.upper:.1f}] (certified interval, "
        f"{measured.method}); the worst cut has |S| = {len(measured.S)}, |T| = "
        f"{len(measured.T)}"
    )
    _demo_groups(epsilon, arguments.seed)
    return 0


def _shares(report: dict) -> str:
    """The release's budget split, e.g. ``edge-count 76%, randomized-response 24%``."""
    return ", ".join(f"{m['name']} {m['share']:.0%}" for m in report["measurements"])


def _bound_lines(report: dict, indent: str = "  ") -> list[str]:
    """One line per workload class: its error bound and the measurement it comes from."""
    return [
        f"{indent}{name:<14} error <= {bound['bound']:.6g} ({bound['source']})"
        for name, bound in report["workload_bounds"].items()
    ]


def _demo_groups(epsilon: float, seed: int | None) -> None:
    """The multi-measurement release on the Davis southern women, women and events public."""
    from privcut.datasets import load
    from privcut.evaluate import WorkloadClasses

    davis = load("davis")  # bipartite: 18 women, 14 events (E1-E14), 89 attendances
    groups = {v: "event" if v[0] == "E" and v[1:].isdigit() else "woman" for v in davis}
    _line(
        f"\nReleasing the Davis southern women graph ({davis.number_of_edges()} attendances) "
        "with women and events as a public partition:"
    )
    H = privcut.synthetic_graph(davis, epsilon, groups=groups, rng=seed)
    report = H.graph["privcut"]
    _line(f"  budget split without looking at the data: {_shares(report)}")
    bounds = report["workload_bounds"]
    _line(
        f"  claimed, each with probability {1 - report['beta']:g}: every within-group count "
        f"within {bounds['within-group']['bound']:g}, the women-events cut within "
        f"{bounds['between-group']['bound']:g}"
    )
    errors = WorkloadClasses(davis, groups, bisections=200, rng=seed).errors(H)
    inside = sum(groups[u] == groups[v] for u, v in H.edges())
    _line(
        f"  measured (evaluation only): within-group error {errors['within-group']:.1f}, "
        f"women-events error {errors['between-group']:.1f}, mean bisection error "
        f"{errors['bisection']:.1f}; {inside} synthetic edges inside a group (the private "
        "graph has none)"
    )


def _read_text(path: str, what: str) -> str:
    """A UTF-8 text file's contents (without a byte order mark first); a file that is not
    UTF-8 or cannot be read is a PrivcutError naming it."""
    try:
        return Path(path).read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as error:
        raise privcut.PrivcutError(
            f"{path}: the {what} is not UTF-8 text (byte {error.start}); save it as UTF-8"
        ) from None
    except OSError as error:
        raise privcut.PrivcutError(f"cannot read {path}: {error.strerror}") from None


def _read_queries(path: str) -> list[tuple[list[str], list[str]]]:
    """Cut queries from JSON (``[{"S": [...], "T": [...]}, ...]`` or ``[[S, T], ...]``) or
    from lines ``S nodes, T nodes`` (nodes separated by spaces; ``#`` starts a comment)."""
    text = _read_text(path, "query file")
    queries = _json_queries(path, text) if path.endswith(".json") else _line_queries(path, text)
    if not queries:
        raise privcut.PrivcutError(f"no queries in {path}; give at least one 'S nodes, T nodes'")
    return queries


def _json_queries(path: str, text: str) -> list[tuple[list[str], list[str]]]:
    try:
        items = json.loads(text)
    except json.JSONDecodeError as error:
        raise privcut.PrivcutError(f"{path}:{error.lineno}: not valid JSON: {error.msg}") from None
    if not isinstance(items, list):
        raise privcut.PrivcutError(
            f'no queries in {path}: it must hold a JSON list [{{"S": [...], "T": [...]}}, ...]'
        )
    queries = []
    for number, item in enumerate(items):
        pair = (item.get("S"), item.get("T")) if isinstance(item, dict) else item
        if (
            not isinstance(pair, (list, tuple))
            or len(pair) != 2
            or not all(isinstance(side, list) for side in pair)
        ):
            raise privcut.PrivcutError(
                f'{path}: query {number} must be {{"S": [...], "T": [...]}} or [S, T]'
            )
        queries.append((_labels(path, number, pair[0]), _labels(path, number, pair[1])))
    return queries


def _labels(path: str, number: int, side: list) -> list[str]:
    """A JSON query side's node labels as str: each a JSON string or number (not null,
    true/false, a list or an object, which no edge list's label reads as)."""
    for node in side:
        if isinstance(node, bool) or not isinstance(node, (str, int, float)):
            raise privcut.PrivcutError(
                f"{path}: query {number} names the node {json.dumps(node)}; a node is a "
                'label, a JSON string ("a") or number (3)'
            )
    return [str(node) for node in side]


def _line_queries(path: str, text: str) -> list[tuple[list[str], list[str]]]:
    queries = []
    for number, line in enumerate(text.splitlines(), start=1):
        content = line.split("#", 1)[0].strip()
        if not content:
            continue
        sides = content.split(",")
        if len(sides) != 2:
            raise privcut.PrivcutError(
                f"{path}:{number}: expected 'S nodes, T nodes', got {line!r}"
            )
        queries.append((sides[0].split(), sides[1].split()))
    return queries


def _read_graph(arguments: argparse.Namespace):
    """The input graph of ``cuts``: an edge list (unweighted: a third column, if any, is
    ignored), with the public node list added when given (the node count is checked once
    the queries' nodes joined: without a node list they are public too, review 38 F1)."""
    from privcut.datasets import read_edgelist, read_nodelist

    try:
        G = read_edgelist(arguments.input, directed=arguments.directed, weight=None)
        nodes = read_nodelist(arguments.nodes) if arguments.nodes else None
    except OSError as error:
        raise privcut.PrivcutError(f"cannot read {error.filename}: {error.strerror}") from None
    if nodes is not None:
        unknown = set(G.nodes) - set(nodes)
        if unknown:
            raise privcut.PrivcutError(
                f"{arguments.input}: nodes {sorted(unknown)[:5]} are not in the node list "
                f"{arguments.nodes}; add them there"
            )
        G.add_nodes_from(nodes)
    return G


def _check_pairs(path: str, n: int) -> None:
    if n < 2:
        raise privcut.PrivcutError(
            f"{path}: the graph has fewer than 2 nodes (no vertex pairs, nothing to release); "
            "give an edge list with edges, or the public node set with --nodes"
        )


def _progress(arguments: argparse.Namespace) -> bool:
    """Whether to show progress bars: without ``--quiet``, and only on a terminal. A bar
    shows the private input's size (the bytes read, about the edge count) and timings,
    for the data holder's eyes; stderr written to a file or a pipe (a log that may be
    shared) holds only the summary, a function of the release and the public inputs."""
    return not arguments.quiet and sys.stderr.isatty()


def _read_array(arguments: argparse.Namespace):
    """The input graph of ``synthesize`` as a :class:`~privcut.datasets.EdgeArray`, read by
    the columnar reader (no NetworkX graph; a progress bar over the bytes for a file read
    in more than one chunk, where :func:`_progress` allows bars): a bundled dataset, or an
    edge list whose node order is the canonical order of the public node set
    (``--nodes``, else the labels read), as the release's would be."""
    from privcut.datasets import load, read_edge_array, read_nodelist
    from privcut.datasets.edges import CHUNK_BYTES
    from privcut.graph.universe import canonical_order

    if arguments.dataset:
        if arguments.input:
            raise privcut.PrivcutError("give either an input edge list or --dataset, not both")
        given = [
            f"--{name}" for name in ("nodes", "directed", "weight") if getattr(arguments, name)
        ]
        if given:
            raise privcut.PrivcutError(
                f"{', '.join(given)} describe an input edge list; the bundled graph "
                f"{arguments.dataset!r} is undirected and unweighted on its own nodes"
            )
        try:
            return load(arguments.dataset, as_sparse=True)
        except ValueError as error:
            raise privcut.PrivcutError(str(error)) from None
    if not arguments.input:
        raise privcut.PrivcutError("give an input edge list or --dataset NAME")
    try:
        nodes = read_nodelist(arguments.nodes) if arguments.nodes else None
        large = os.path.getsize(arguments.input) > CHUNK_BYTES  # read in more than one chunk
        edges = read_edge_array(
            arguments.input,
            directed=arguments.directed,
            weight=arguments.weight,
            nodes=None if nodes is None else canonical_order(dict.fromkeys(nodes)),
            progress=large and _progress(arguments),
        )
    except OSError as error:
        raise privcut.PrivcutError(f"cannot read {error.filename}: {error.strerror}") from None
    _check_pairs(arguments.input, len(edges.nodes))
    return edges


def _json(report: dict) -> str:
    """A release's report as the JSON text written (indented, one final newline)."""
    return json.dumps(report, indent=2) + "\n"


def _guarantee(report: dict) -> str:
    """The written edge list's first line (without ``# ``): the release's guarantee."""
    return (
        f"privcut synthetic graph: {_dp(report)}, "
        f"edge-level; cut_error_bound {report['cut_error_bound']:.6g} "
        f"(probability {1 - report['beta']:g})"
    )


def _dp(report: dict) -> str:
    """``(epsilon, delta)-DP``, and where the integer samplers have a slack, the guarantee
    with it (rounded up: never shown stronger than proven; :func:`_void`)."""
    epsilon = f"{report['epsilon']:g}"
    text = f"({epsilon}, {report['delta']:g})-DP"
    if report.get("effective_delta", 0.0) > report["delta"]:
        slack = rounded_up(report["effective_delta"])
        text += f" (({epsilon}, {slack})-DP with the integer samplers' slack{_void(report)})"
    return text


def _void(report: dict) -> str:
    """At an effective delta of 1 (capped: a guarantee of nothing), the way out: the slack
    is ``(1 + e**epsilon)`` times the samplers' total-variation bound, which grows with
    the noise scale, so a large epsilon is lowered and a small one raised; else ""."""
    if report["effective_delta"] < 1:
        return ""
    fix = "use a smaller epsilon" if report["epsilon"] > 1 else "raise epsilon"
    return f"; delta 1 guarantees nothing: {fix}"


def rounded_up(value: float) -> str:
    """``value`` > 0 in two significant digits, rounded up (``1.049e-3`` as ``1.1e-03``).

    Examples
    --------
    >>> rounded_up(1.049e-3), rounded_up(1.0), rounded_up(3.3e-10)
    ('1.1e-03', '1.0e+00', '3.3e-10')
    """
    mantissa, exponent = f"{value:.15e}".split("e")
    tenths = math.ceil(round(float(mantissa) * 10, 9))
    if tenths >= 100:
        tenths, exponent = 10, str(int(exponent) + 1)
    return f"{tenths / 10:.1f}e{int(exponent):+03d}"


def _measurements(arguments: argparse.Namespace) -> str | list[str]:
    """``--measurements``: "auto" (the default), or the comma list as names."""
    if arguments.measurements == "auto":
        return "auto"
    return [name.strip() for name in arguments.measurements.split(",")]


DASK_REFUSED = {
    "dataset": "--dataset",
    "nodes": "--nodes (give the public --node-count; ids are 0..N-1)",
    "weight": "--weight (the sparse release is a 0/1 graph)",
    "memory": "--memory",
    "oracle": "--oracle (the sparse release uses no cut-norm oracle)",
    "private_communities": "--private-communities (the engine releases without communities)",
    "no_private_communities": "--no-private-communities (it never buys communities)",
    "communities_out": "--communities-out (the engine releases without communities)",
    "community_share": "--community-share (the engine releases without communities)",
}
"""Options of the in-memory ``synthesize`` that ``--engine dask`` refuses (with the reason)."""


def _dask_groups(path: str) -> dict[int, str]:
    """A groups file for ``--engine dask``: its node labels as the integer ids."""
    from privcut.datasets import read_groups

    groups = read_groups(path)
    try:
        return {int(node): group for node, group in groups.items()}
    except ValueError:
        raise privcut.PrivcutError(
            f"--groups {path}: with --engine dask the nodes are integer ids 0..N-1; got a "
            f"label like {next(iter(groups))!r}"
        ) from None


def _node_count(count: int) -> int:
    """``--node-count`` checked before the cluster starts."""
    from privcut.graph.dask import MAX_NODES

    if not 2 <= count <= MAX_NODES:
        raise privcut.PrivcutError(
            f"--node-count must be the public node count, an integer in [2, {MAX_NODES:,}] "
            f"(node ids 0..N-1), got {count}"
        )
    return count


def _dask_edges(path: str):
    """The Parquet edge table of ``--engine dask`` as a lazy Dask DataFrame of its
    columns u and v, its metadata checked (before the cluster starts): a missing path, a
    file that is not Parquet, or a table without u or v is a PrivcutError naming the
    path and the fix."""
    try:
        import dask.dataframe as dd
    except ImportError:
        raise privcut.PrivcutError(
            "--engine dask needs the dask extra: pip install 'privcut[dask]'"
        ) from None
    if not os.path.exists(path):
        raise privcut.PrivcutError(
            f"cannot read {path}: no such file or folder; give the Parquet edge table"
        )
    try:
        edges = dd.read_parquet(path)
        columns = list(edges.columns)
    except (ValueError, OSError):  # pyarrow's ArrowInvalid is a ValueError
        raise privcut.PrivcutError(
            f"{path}: not a Parquet table; --engine dask reads a Parquet file or folder with "
            "integer columns u, v: convert the edge list (e.g. with pandas' read_csv and "
            "to_parquet), or drop --engine dask"
        ) from None
    for column in ("u", "v"):
        if column not in columns:
            raise privcut.PrivcutError(
                f"{path}: the Parquet table has no column {column!r} (columns "
                f"{columns[:5]}); --engine dask reads the endpoints as integer node ids "
                "from columns u and v: rename them"
            )
        if edges[column].dtype.kind not in "iu":
            raise privcut.PrivcutError(
                f"{path}: column {column!r} has dtype {edges[column].dtype}; --engine dask "
                "needs integer node ids 0..N-1 without missing values in columns u and v"
            )
    return edges[["u", "v"]]


_DASHBOARD = "127.0.0.1:0"
"""The local cluster's HTTP server: any free local port (with ``None`` distributed tries
8787 and, when another program holds it, warns on stderr, which is kept to the summary:
review 38 F6)."""


@contextlib.contextmanager
def _dask_client(address: str | None) -> Iterator:
    """A ``distributed.Client`` for the ``with`` block: on the scheduler at ``address``,
    else on a local cluster, closed with it (within the command, where a Ctrl-C is
    reported as such, rather than at the interpreter's exit)."""
    try:
        import distributed
    except ImportError:
        raise privcut.PrivcutError(
            "--engine dask needs the dask extra: pip install 'privcut[dask]'"
        ) from None
    for name in ("distributed", "dask"):  # no worker addresses, shuffle ids or clock times
        logging.getLogger(name).setLevel(logging.ERROR)  # on a stderr kept to the summary
    if address is not None:
        with distributed.Client(address) as client:
            yield client
        return
    with (
        distributed.LocalCluster(
            dashboard_address=_DASHBOARD, silence_logs=logging.ERROR
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


class _Output(NamedTuple):
    """One output of a command: its option, its path, and the function that writes it
    in full at the (temporary) path it is given; a folder if ``folder``."""

    option: str
    path: str
    write: Callable[[Path], None]
    folder: bool = False


FIXES = {
    errno.ENOSPC: "free space in {folder}",
    errno.EDQUOT: "free space in {folder} (disk quota exceeded)",
    errno.EACCES: "make {folder} writable, or give another path",
    errno.EPERM: "make {folder} writable, or give another path",
    errno.EROFS: "give a path on a writable file system",
}
"""The fix a failed write's message names, by its errno (else: fix the path)."""


def _write_outputs(arguments: argparse.Namespace, outputs: Sequence[_Output]) -> None:
    """Write a command's outputs together (:class:`privcut.files.ReplaceTogether`): each
    in full to a temporary file beside its target, fsynced, and only then all renamed
    into place (a replaced file keeps its permission bits). A failure before the renames
    removes the temporary files, touches no output and is a
    :class:`~privcut.PrivcutError` naming the path and the fix; a failure during the
    renames is a :class:`~privcut.files.PartialReplaceError` (see :func:`main`). A
    SIGTERM or SIGHUP meanwhile removes the temporary files too, then ends the process as
    the signal would (:func:`_terminable`); a Ctrl-C removes them too (:func:`main`
    reports it). ``arguments.replaced`` is set to the outputs renamed into place, whatever
    happens, and ``arguments.staged`` to the set (for :func:`_interrupted`)."""
    options = {str(Path(output.path)): output.option for output in outputs}
    failed = outputs[0]
    written = arguments.staged = ReplaceTogether()
    try:
        with _terminable(), written:
            for failed in outputs:
                stage = written.folder if failed.folder else written.path
                failed.write(stage(failed.path))
    except PartialReplaceError:
        raise
    except OSError as error:  # in a write (failed), or in the commit (error.filename)
        path = error.filename if str(error.filename) in options else failed.path
        option = options.get(str(path), failed.option)
        fix = FIXES.get(error.errno, "fix the path").format(folder=Path(path).parent)
        raise privcut.PrivcutError(
            f"{option} {path}: cannot be written ({error.strerror or error}); no output was "
            f"written or replaced: {fix} and run again (a new release: it spends epsilon "
            "again)"
        ) from None
    finally:
        arguments.replaced = written.replaced


def _text(content: str) -> Callable[[Path], None]:
    """A writer of ``content`` (UTF-8 text) for :class:`_Output`, straight into the staged
    temporary file (which the commit fsyncs)."""
    return lambda path: path.write_bytes(content.encode())


class _Terminated(BaseException):
    """A SIGTERM or SIGHUP that arrived while the outputs were being written."""


TERMINATING = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)
)
"""The signals :func:`_terminable` turns into an exception while the outputs are written."""


@contextlib.contextmanager
def _terminable() -> Iterator[None]:
    """While the block runs, turn :data:`TERMINATING` (those at their default action, in
    the main thread) into an exception, so that the staged temporary files (the full
    release) are removed as on any failure; then end the process as the signal would
    (its default action: killed by it, status 128 + its number in a shell; else exit
    status 128 + its number)."""
    numbers = ()
    if threading.current_thread() is threading.main_thread():
        numbers = tuple(n for n in TERMINATING if signal.getsignal(n) == signal.SIG_DFL)
    arrived: list[int] = []

    def stop(number: int, frame) -> None:
        arrived.append(number)
        if len(arrived) == 1:
            raise _Terminated(number)

    try:
        try:
            for number in numbers:
                signal.signal(number, stop)
            yield
        finally:
            _set_default(list(numbers))
    except _Terminated:
        pass
    if arrived:
        signal.raise_signal(arrived[0])  # its default action again: ends the process
        raise SystemExit(128 + arrived[0])


def _set_default(numbers: list[int]) -> None:
    """Put back each signal's default action, even when setting an earlier one raises."""
    if numbers:
        try:
            signal.signal(numbers[0], signal.SIG_DFL)
        finally:
            _set_default(numbers[1:])


def _synthesize_dask(arguments: argparse.Namespace) -> int:
    """``synthesize --engine dask``: the sparse release of a Parquet edge table (columns
    u, v; integer ids in [0, --node-count)) on a Dask cluster, written as Parquet."""
    from privcut.privacy import check_epsilon

    given = [text for name, text in DASK_REFUSED.items() if getattr(arguments, name)]
    if arguments.method not in ("auto", "sparse") or arguments.rounding != "random":
        given.append("--method dense / --rounding none (the engine runs the sparse release)")
    if given:
        raise privcut.PrivcutError(f"--engine dask does not take {', '.join(given)}")
    if arguments.node_count is None or not arguments.input:
        raise privcut.PrivcutError(
            "--engine dask needs EDGES.parquet and the public --node-count N"
        )
    epsilon = check_epsilon(arguments.epsilon)
    node_count = _node_count(arguments.node_count)
    _check_blocks(arguments, _measurement_names(arguments))
    groups = _dask_groups(arguments.groups) if arguments.groups else None
    from privcut.graph.dask import check_measurements

    check_measurements(_measurements(arguments), grouped=groups is not None)  # no cluster yet
    edges = _dask_edges(arguments.input)  # its metadata only, before the cluster starts
    with _dask_client(arguments.scheduler):
        from privcut.graph.dask import synthetic_edges

        released, report = synthetic_edges(
            edges,
            node_count,
            epsilon,
            directed=arguments.directed,
            measurements=_measurements(arguments),
            groups=groups,
            beta=arguments.beta,
            rng=arguments.seed,
        )
        report = report.to_dict()
        outputs = [
            _Output(
                "--output",
                arguments.output,
                lambda path: released.to_parquet(path, write_index=False),
                folder=True,
            )
        ]
        if arguments.report:
            outputs.append(_Output("--report", arguments.report, _text(_json(report))))
        _write_outputs(arguments, outputs)
    if not arguments.quiet:
        _tell(
            f"wrote {report['edge_count']:.0f} edges on {arguments.node_count} nodes to "
            f"{arguments.output} (Parquet; the sparse generator, engine dask): "
            f"{_dp(report)} ({_shares(report)})\n"
        )
    return 0


def _measurement_names(arguments: argparse.Namespace) -> list[str]:
    """``--measurements`` as names, each checked (before any data is read): known, not
    empty, not repeated; ``[]`` for "auto"."""
    from privcut.graph.planning import MEASUREMENTS

    names = _measurements(arguments)
    if names == "auto":
        return []
    choices = f"give 'auto' or a comma list from {', '.join(MEASUREMENTS)}"
    for name in names:
        if name not in MEASUREMENTS:
            raise privcut.PrivcutError(
                f"--measurements {arguments.measurements}: unknown measurement {name!r}; {choices}"
            )
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise privcut.PrivcutError(
            f"--measurements {arguments.measurements}: {repeated[0]!r} named twice; name each once"
        )
    return names


def _check_blocks(arguments: argparse.Namespace, names: list[str]) -> None:
    """The 'blocks' measurement and a partition go together (before any data is read)."""
    if not names:
        return
    partition = arguments.groups or arguments.private_communities
    if "blocks" in names and not partition:
        raise privcut.PrivcutError(
            "--measurements blocks measures the block counts of a partition: add --groups "
            "FILE (a public one) or --private-communities, or drop blocks"
        )
    if partition and "blocks" not in names:
        option = "--groups" if arguments.groups else "--private-communities"
        raise privcut.PrivcutError(
            f"{option} gives the partition of the 'blocks' measurement: add blocks to "
            f"--measurements (or use --measurements auto), or drop {option}"
        )


def _check_generator_options(arguments: argparse.Namespace) -> None:
    """``synthesize``'s options that exclude each other, checked before the edge list is
    read (public inputs only): the measurements, the partition, the generator's options,
    and a ``--memory`` the dense generator cannot fit even on the fewest nodes it may
    have (the node list's count with ``--nodes``, else 2)."""
    names = _measurement_names(arguments)
    _check_blocks(arguments, names)
    if arguments.method == "sparse" and arguments.rounding == "none":
        raise privcut.PrivcutError(
            "--rounding none keeps weights, but the sparse generator (--method sparse) "
            "releases a 0/1 graph: use --method dense (or auto), or drop --rounding none"
        )
    if arguments.method == "sparse" and arguments.oracle:
        raise privcut.PrivcutError(
            "--oracle belongs to the dense generator; --method sparse uses none: drop "
            "--oracle, or use --method dense"
        )
    if arguments.weight and arguments.private_communities:
        raise privcut.PrivcutError(
            "--private-communities reads the graph as 0/1 (its communities' noise is "
            "calibrated to counts): drop --weight"
        )
    dense = arguments.method == "dense" or (
        arguments.method == "auto" and "randomized-response" in names
    )
    if dense and arguments.memory is not None:
        _check_dense_memory(arguments)
    if arguments.method == "auto" and (arguments.oracle or arguments.rounding == "none"):
        from privcut.datasets import read_nodelist

        n = len(set(read_nodelist(arguments.nodes))) if arguments.nodes else 2
        _check_auto_generator(arguments, n)


def _check_auto_generator(arguments: argparse.Namespace, n: int) -> None:
    """Refuse ``--oracle`` and ``--rounding none`` (dense generator only) when ``--method
    auto`` takes the sparse generator on ``n`` nodes: the public node count (the node
    list's, the edge list's nodes without one), or 2, the fewest, before the edge list is
    read (then the choice holds on any graph: it is sparse on more nodes too)."""
    if arguments.method != "auto" or not (arguments.oracle or arguments.rounding == "none"):
        return
    from privcut.graph.planning import ASSORTATIVITY, CLUSTERING, FILTERED
    from privcut.graph.synthetic import chosen_generator

    measurements = _measurements(arguments)
    chosen, why = chosen_generator(n, measurements=measurements, memory=arguments.memory)
    if chosen != "sparse":
        return
    option, use = (
        ("--oracle", "uses no cut-norm oracle")
        if arguments.oracle
        else ("--rounding none", "releases a 0/1 graph")
    )
    why = why.removeprefix("method 'auto': sparse, ")
    sparse_only = (FILTERED, CLUSTERING, ASSORTATIVITY)
    named = [name for name in _measurement_names(arguments) if name in sparse_only]
    if named:  # a measurement only the sparse generator uses
        other = f"drop {named[0]} from --measurements"
        why = f"--measurements names {named[0]}, a measurement of the sparse generator"
    else:  # the dense generator's predicted memory exceeds the budget
        budget = " --memory budget" if arguments.memory is not None else " default --memory"
        why = why.replace(" budget", budget)
        other = "use --method dense, raising --memory if the machine has it"
    raise privcut.PrivcutError(
        f"{option} belongs to the dense generator, but --method auto takes the sparse one "
        f"here ({why}), which {use}: drop {option}, or {other}"
    )


def _check_dense_memory(arguments: argparse.Namespace) -> None:
    """Refuse a ``--memory`` below the dense generator's need on the fewest nodes the
    release may have (the public node list's count, else 2)."""
    from privcut.datasets import read_nodelist
    from privcut.graph.synthetic import dense_memory

    n = len(set(read_nodelist(arguments.nodes))) if arguments.nodes else 2
    need = dense_memory(n)
    if need > arguments.memory:
        where = f"the {n:,} nodes of --nodes" if arguments.nodes else "2 nodes, the fewest"
        raise privcut.PrivcutError(
            f"--memory {arguments.memory:g}: the dense generator needs {need:,} bytes on "
            f"{where}: raise --memory, or use --method sparse"
        )


def _private_groups(arguments: argparse.Namespace):
    """``--private-communities`` and its options as a
    :class:`~privcut.graph.PrivateGroups` (None without it), checked before any data is
    read."""
    from privcut.graph import PrivateGroups
    from privcut.graph.planning import COMMUNITY_SHARE
    from privcut.graph.private_groups import NO_GROUPS

    if arguments.private_communities and arguments.no_private_communities:
        raise privcut.PrivcutError(
            "--private-communities and --no-private-communities exclude each other; give one"
        )
    if not arguments.private_communities:
        never = arguments.no_private_communities or arguments.groups
        for option in ("community_share", "communities_out"):
            if option == "communities_out" and not never:
                continue  # measurements "auto" may buy them (a noisy decision)
            if getattr(arguments, option) is not None:
                flag = "--" + option.replace("_", "-")
                raise privcut.PrivcutError(
                    f"{flag} belongs to --private-communities; add it, or drop {flag}"
                )
        return NO_GROUPS if arguments.no_private_communities else None
    if arguments.groups:
        raise privcut.PrivcutError(
            "--groups (a public partition) and --private-communities (a partition bought "
            "with a share of epsilon) exclude each other; give one of them"
        )
    share = COMMUNITY_SHARE if arguments.community_share is None else arguments.community_share
    try:
        return PrivateGroups(share=share)
    except (ValueError, TypeError) as error:
        raise privcut.PrivcutError(f"--community-share: {error}") from None


def _communities_text(H) -> str:
    """The released partition as ``node<TAB>community`` lines (CSV quoting, tab-separated,
    where a label needs it), in the release's node order; the header alone when
    ``measurements="auto"`` decided not to buy one (the file is written either way, so
    that a file from an earlier release is never left standing for this one)."""
    text = io.StringIO()
    writer = csv.writer(text, delimiter="\t", lineterminator="\n")
    writer.writerow(["# node", "community"])
    if H.communities is not None:
        writer.writerows(zip(H.nodes, H.communities.tolist(), strict=True))
    return text.getvalue()


def _check_decision(arguments: argparse.Namespace, n: int, directed: bool) -> None:
    """``--communities-out`` without ``--private-communities`` promises the partition that
    ``--measurements auto`` may buy: refused, before any spend, where no decision is made
    (public inputs only: :func:`~privcut.graph.synthetic.decides_groups`)."""
    from privcut.graph.planning import AUTO_GROUPS_MIN_NODES
    from privcut.graph.synthetic import decides_groups

    try:
        possible = decides_groups(
            n,
            method=arguments.method,
            measurements=_measurements(arguments),
            directed=directed,
            weight=arguments.weight,
            memory=arguments.memory,
        )
    except ValueError as error:
        raise privcut.PrivcutError(str(error)) from None
    if not possible:
        raise privcut.PrivcutError(
            "--communities-out: this release buys no communities (--measurements auto "
            "decides to buy them only on the sparse path of an undirected 0/1 graph of at "
            f"least {AUTO_GROUPS_MIN_NODES:,} nodes without --groups); add "
            "--private-communities, or drop --communities-out"
        )


def _synthesize(arguments: argparse.Namespace) -> int:
    from privcut.datasets import read_groups
    from privcut.privacy import check_epsilon

    if arguments.engine == "dask":
        return _synthesize_dask(arguments)
    if arguments.scheduler or arguments.node_count is not None:
        raise privcut.PrivcutError("--scheduler and --node-count belong to --engine dask")
    epsilon = check_epsilon(arguments.epsilon)
    private = _private_groups(arguments)
    _check_generator_options(arguments)
    groups = read_groups(arguments.groups) if arguments.groups else private
    edges = _read_array(arguments)
    _check_auto_generator(arguments, len(edges.nodes))  # the public node count
    if arguments.communities_out and private is None:
        _check_decision(arguments, len(edges.nodes), edges.directed)
    rounding = None if arguments.rounding == "none" else arguments.rounding
    try:
        H = privcut.synthetic_graph(
            edges.adjacency,
            epsilon,
            nodes=edges.nodes,
            directed=edges.directed,
            method=arguments.method,
            memory=arguments.memory,
            oracle=arguments.oracle or "spectral",
            rounding=rounding,
            measurements=_measurements(arguments),
            groups=groups,
            beta=arguments.beta,
            weight=arguments.weight,
            rng=arguments.seed,
            progress=_progress(arguments),
        )
    except ValueError as error:  # option errors, raised before the graph is read
        raise privcut.PrivcutError(str(error)) from None
    report = H.graph["privcut"]  # the release's to_dict(): the --report JSON as it is
    _write_outputs(arguments, _release_outputs(arguments, H, report, edges.directed))
    if arguments.communities_out and H.communities is None and not arguments.quiet:
        _tell(f"no private communities were bought: {arguments.communities_out} has no rows\n")
    if not arguments.quiet:
        _summary(arguments, H, report, edges.directed)
    return 0


def _release_outputs(
    arguments: argparse.Namespace, H, report: dict, directed: bool
) -> list[_Output]:
    """The outputs of ``synthesize``: the edge list, and the report and the partition
    where asked (by the options alone: the partition is the header alone when the noisy
    decision did not buy one)."""
    from privcut.datasets import write_edge_array

    outputs = [
        _Output(
            "--output",
            arguments.output,
            lambda path: write_edge_array(
                path,
                H,
                H.nodes,  # the canonical order of the public node set, never the input's
                header=[_guarantee(report)],
                weighted=report["rounding"] is None,
                directed=directed,
            ),
        )
    ]
    if arguments.report:
        outputs.append(_Output("--report", arguments.report, _text(_json(report))))
    if arguments.communities_out:
        outputs.append(
            _Output("--communities-out", arguments.communities_out, _text(_communities_text(H)))
        )
    return outputs


def _summary(arguments: argparse.Namespace, H, report: dict, directed: bool) -> None:
    """The release's one-paragraph summary on stderr (:func:`_tell`: after the outputs
    were written, so never an error): edges written, guarantee, bounds and the private
    communities if any."""
    count = H.nnz if directed else H.nnz // 2
    lines = [
        f"wrote {count} edges on {H.shape[0]} nodes to {arguments.output} (the "
        f"{report['method']} generator): {_dp(report)} "
        f"({_shares(report)}); with probability {1 - report['beta']:g} each:",
        *_bound_lines(report),
    ]
    decision = report.get("groups_decision")
    if decision is not None:
        verdict = "bought" if decision["bought"] else "not bought"
        lines.append(
            f"  private communities {verdict}: epsilon x noisy average degree "
            f"{decision['statistic']:.3g} vs {decision['threshold']:g} (measurements auto; "
            "--no-private-communities to never buy them)"
        )
    if report.get("communities") is not None:
        found = report["communities"]
        lines.append(
            f"  {found['communities']} private communities released with the graph "
            f"(share {found['share']:g} of epsilon)"
        )
    _tell("".join(f"{line}\n" for line in lines))


def _declare_query_nodes(G, queries: list[tuple[list[str], list[str]]], nodes: str | None):
    """Queries are public, so the nodes they name are too: without a node list they join
    G's node set (a node without edges has degree 0, never an error that would reveal
    it); with one (``nodes``, its file) a label outside it is an error, whatever the
    edges."""
    named = {node: None for S, T in queries for node in (*S, *T)}
    if nodes is None:
        G.add_nodes_from(named)
        return
    unknown = [node for node in named if node not in G]
    if unknown:
        raise privcut.PrivcutError(
            f"the queries name nodes {unknown[:5]} that are not in the node list {nodes}; "
            "add them there or fix the queries"
        )


def _cuts(arguments: argparse.Namespace) -> int:
    from privcut.graph import answer_cuts
    from privcut.privacy import check_delta, check_epsilon

    if arguments.weight is not None:
        raise privcut.PrivcutError(
            "cuts does not take --weight: its release answers the cuts of the 0/1 graph "
            "(every edge counts 1; a third column is ignored); drop --weight, or release "
            "weighted cuts with 'privcut synthesize --weight ATTR --rounding none'"
        )
    epsilon = check_epsilon(arguments.epsilon)
    delta = check_delta(arguments.delta)
    G = _read_graph(arguments)
    try:
        queries = _read_queries(arguments.queries)
    except OSError as error:
        raise privcut.PrivcutError(f"cannot read {error.filename}: {error.strerror}") from None
    _declare_query_nodes(G, queries, arguments.nodes)
    _check_pairs(arguments.input, G.number_of_nodes())  # the public nodes, queries' too
    answers = answer_cuts(
        G,
        queries,
        epsilon,
        delta=delta,
        strategy=arguments.strategy,
        rng=arguments.seed,
    )
    text = _json(answers.to_dict())  # the release's report, as it is
    if arguments.output:
        _write_outputs(arguments, [_Output("--output", arguments.output, _text(text))])
    else:
        _to_stdout(
            text,
            "; epsilon was spent: write the answers to a file with -o (a rerun spends it again)",
        )
    return 0


def _line(text: str = "") -> None:
    """One line of the demo on standard output (:func:`_to_stdout`)."""
    _to_stdout(f"{text}\n")


def _to_stdout(text: str, advice: str = "") -> None:
    """Write ``text`` on standard output and flush it (with what was printed before); a
    write that fails (a full disk: ``> /dev/full``) is an error naming standard output,
    followed by ``advice``; a closed pipe (``| head``) is let through (:func:`main` ends
    quietly)."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as error:
        raise privcut.PrivcutError(
            f"cannot write to standard output: {error.strerror or error}{advice}"
        ) from None


def _seed(text: str) -> int:
    """An argparse type: a non-negative integer seed."""
    try:
        seed = int(text)
    except ValueError:
        seed = -1
    if seed < 0:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {text!r}")
    return seed


SIZE_UNITS = {"": 1, "K": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}
"""The suffixes ``--memory`` takes (decimal, as :data:`privcut.graph.synthetic.DENSE_MEMORY`)."""


def _size(text: str) -> float:
    """An argparse type: a positive size in bytes, ``8e9`` or ``8G`` (K, M, G, T; a
    trailing ``B`` allowed)."""
    number = text.strip().upper().removesuffix("B")
    unit = number[-1:] if number[-1:] in SIZE_UNITS else ""
    try:
        size = float(number.removesuffix(unit)) * SIZE_UNITS[unit]
    except ValueError:
        size = -1.0
    if not 0 < size < float("inf"):
        raise argparse.ArgumentTypeError(
            f"must be a positive size in bytes like 8e9 or 8G, got {text!r}"
        )
    return size


def _add_seed(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--seed",
        type=_seed,
        default=None,
        help="seed the randomness (reproducible, not private; default secure)",
    )


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line (no usage block), and whose help
    and version go through :func:`_to_stdout`: argparse drops a failed write (``privcut
    --help > /dev/full`` ended with status 0 and nothing written; review 10)."""

    def error(self, message: str) -> NoReturn:
        self.exit(USAGE_ERROR, f"{self.prog}: error: {message} (see {self.prog} --help)\n")

    def print_help(self, file: IO[str] | None = None) -> None:
        if file is not None:
            super().print_help(file)
            return
        self.say(self.format_help())

    def say(self, text: str) -> None:
        """Write ``text`` on standard output; a failed write is a usage error naming it."""
        try:
            _to_stdout(text)
        except privcut.PrivcutError as error:
            self.exit(USAGE_ERROR, f"{self.prog}: error: {error}\n")


class _Version(argparse.Action):
    """``--version``: the version on standard output (:meth:`_Parser.say`), then exit 0."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(self, parser: _Parser, *args: object) -> NoReturn:
        parser.say(f"privcut {privcut.__version__}\n")
        parser.exit()


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="privcut",
        description="Differentially private release of graph cut queries (edge-level privacy).",
    )
    parser.add_argument("--version", action=_Version, help="show the version and exit")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    demo = commands.add_parser("demo", help="show what privcut can do on a bundled graph")
    demo.add_argument("--epsilon", type=float, default=1.0, help="privacy parameter (default 1)")
    _add_seed(demo)
    demo.set_defaults(run=_demo)
    _add_cuts(commands)
    _add_synthesize(commands)
    return parser


EDGE_LINES = "'u v' per line (SNAP) or 'u,v' (CSV); a header line must be a comment ('# u v')"
"""How the help describes an edge list's lines."""

OUTPUTS_HELP = (
    "Outputs: every output path is checked before the data is read or any budget spent "
    "(its folder takes a new file, its name fits, it is no folder, device, symbolic link "
    "or system path, it is no input and no other output). "
    "The outputs are written together: each in full to a temporary file beside it, and "
    "only when all are written are they renamed into place. A failed write replaces no "
    "output (exit status 2, naming the path and the fix; a rerun spends epsilon again); "
    "a rename failing after another succeeded (rare) exits 74, naming the outputs "
    "replaced and those not. A SIGTERM or SIGHUP while writing removes the temporary "
    "files. Ctrl-C at any point prints one line, 'interrupted', saying whether the "
    "outputs were written (none is written or left half-written unless the renames were "
    "already under way: they finish first), and ends as SIGINT does (status 130); once "
    "the command has ended, Ctrl-C is ignored while Python exits. The temporary files "
    "are readable by their owner only (0600; a Dask folder 0700) while written. A "
    "replaced output keeps its permission bits (0777: not set-user-ID, set-group-ID or "
    "sticky) but belongs to the user running the command; a new one gets 0666 (a Dask "
    "folder 0777) less the umask. A standard output closed early (| head) ends the "
    "command quietly (status 141); a stderr that cannot be written (2>/dev/full) drops "
    "the summary, never changing the status. Which files are written depends on the "
    "options only."
)
"""The commands' help on how their outputs are written."""


def _add_graph_input(
    command: argparse.ArgumentParser, nodes_default: str, weighted: bool = True
) -> None:
    """The options that say how the private edge list is read (``--weight`` listed in the
    help only where ``weighted``: ``cuts`` refuses it with a message)."""
    command.add_argument(
        "--nodes",
        help="file with the public node set, one label per line (default: the nodes "
        f"{nodes_default}, which are then treated as public)",
    )
    command.add_argument("--directed", action="store_true", help="read the edges as directed")
    command.add_argument(
        "--weight",
        metavar="ATTR",
        help="read the edge list's third column as this edge attribute and release it as "
        "the weights (in [0, 1]); default: unweighted, every edge counts 1 (a third column, "
        "e.g. a SNAP timestamp, must be a number and is ignored)"
        if weighted
        else argparse.SUPPRESS,
    )


def _add_cuts(commands) -> None:
    cuts = commands.add_parser(
        "cuts",
        help="privately answer a file of cut queries on an edge-list graph",
        epilog=OUTPUTS_HELP,
    )
    cuts.add_argument("input", help=f"edge list: {EDGE_LINES}")
    cuts.add_argument(
        "--queries",
        required=True,
        help='JSON [{"S": [...], "T": [...]}, ...] or lines \'S nodes, T nodes\'',
    )
    cuts.add_argument("--epsilon", type=float, required=True, help="privacy parameter")
    cuts.add_argument("--delta", type=float, default=0.0, help="privacy parameter (default 0)")
    cuts.add_argument("--strategy", default="auto", choices=["auto", *CUT_STRATEGIES])
    _add_graph_input(cuts, "of the edge list and of the queries", weighted=False)
    _add_seed(cuts)
    cuts.add_argument("-o", "--output", help="write the JSON report here (default stdout)")
    cuts.set_defaults(run=_cuts)


def _add_dask_engine(synthesize: argparse.ArgumentParser) -> None:
    """``synthesize``'s options for the Dask engine."""
    synthesize.add_argument(
        "--engine",
        default="memory",
        choices=["memory", "dask"],
        help="'memory' (default) or 'dask': the sparse release of a Parquet edge table "
        "(INPUT; integer columns u, v) on a Dask cluster, written to -o as Parquet "
        "(pip install 'privcut[dask]')",
    )
    synthesize.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="with --engine dask: a Dask scheduler's address (default: a local cluster)",
    )
    synthesize.add_argument(
        "--node-count",
        type=int,
        metavar="N",
        help="with --engine dask: the public node count (node ids 0..N-1)",
    )


def _add_private_communities(synthesize: argparse.ArgumentParser) -> None:
    """``--private-communities`` and its options (groups bought with a share of epsilon)."""
    synthesize.add_argument(
        "--private-communities",
        action="store_true",
        help="no public groups: buy a partition with a share of epsilon (private "
        "communities: one exponential-mechanism sweep) and measure its blocks; the "
        "partition is released",
    )
    synthesize.add_argument(
        "--no-private-communities",
        action="store_true",
        help="never buy private communities (by default --measurements auto buys them on "
        "the sparse path of an undirected 0/1 graph of at least 1,000 nodes without "
        "--groups when epsilon x the noisy average degree is at least 12; deciding costs "
        "0.0175 of epsilon when not)",
    )
    synthesize.add_argument(
        "--community-share",
        type=float,
        metavar="S",
        help="with --private-communities: the share of epsilon spent on the partition, "
        "strictly between 0 and 1 (default 0.35)",
    )
    synthesize.add_argument(
        "--communities-out",
        metavar="PATH",
        help="write the released partition here, 'node<TAB>community' per line (with "
        "--private-communities, or where --measurements auto decides: the header alone "
        "when it does not buy them; refused where no decision is made)",
    )


def _add_quiet(synthesize: argparse.ArgumentParser) -> None:
    synthesize.add_argument(
        "--quiet",
        action="store_true",
        help="no progress bar or summary on stderr (the bars, shown only on a terminal, "
        "show the private input's size and timings; the summary only what is released)",
    )


def _add_generator(synthesize: argparse.ArgumentParser) -> None:
    """``synthesize``'s options of the generator: method, memory, oracle, rounding."""
    synthesize.add_argument(
        "--method",
        default="auto",
        choices=["auto", "dense", "sparse"],
        help="the generator: 'dense' (n x n projection), 'sparse' (O(|V| + |E|) block model, "
        "0/1 graphs from low-dimensional measurements), or 'auto' (default: dense when its "
        "predicted memory fits --memory, from the public node count)",
    )
    synthesize.add_argument(
        "--memory",
        type=_size,
        metavar="BYTES",
        help="memory budget the dense generator must fit (auto takes sparse above it, dense "
        "refuses), e.g. 8e9 or 8G (default 2G)",
    )
    synthesize.add_argument(
        "--oracle",
        choices=["spectral", "alon-naor"],
        help="the dense generator's cut-norm oracle (default spectral; refused where the sparse "
        "generator runs, which uses none: --method sparse, or auto taking it)",
    )
    synthesize.add_argument(
        "--rounding",
        default="random",
        choices=["random", "none"],
        help="'random': a 0/1 graph; 'none': weights in [0, 1], dense generator only "
        "(default random)",
    )


def _add_synthesize(commands) -> None:
    synthesize = commands.add_parser(
        "synthesize",
        help="release a synthetic graph whose cuts match an edge-list graph",
        epilog=OUTPUTS_HELP,
    )
    synthesize.add_argument(
        "input",
        nargs="?",
        help=f"edge list: {EDGE_LINES}; read by a columnar reader",
    )
    synthesize.add_argument(
        "--dataset",
        help="a bundled graph instead of INPUT (see demo; undirected and unweighted, so not "
        "with --nodes, --directed or --weight)",
    )
    synthesize.add_argument("--epsilon", type=float, required=True, help="privacy parameter")
    synthesize.add_argument("-o", "--output", required=True, help="edge list to write")
    _add_graph_input(synthesize, "that appear in the edge list")
    synthesize.add_argument(
        "--measurements",
        default="auto",
        help="'auto' (default: a budget split chosen from public inputs) or a comma list "
        "from edge-count, degrees, blocks, randomized-response ('randomized-response' "
        "alone is the seed's release)",
    )
    synthesize.add_argument(
        "--groups",
        help="file with a PUBLIC partition, 'node group' per line, for the blocks measurement",
    )
    _add_private_communities(synthesize)
    _add_generator(synthesize)
    synthesize.add_argument(
        "--beta", type=float, default=0.05, help="failure probability of the error bound"
    )
    synthesize.add_argument("--report", help="write the release's report here as JSON")
    _add_quiet(synthesize)
    _add_dask_engine(synthesize)
    _add_seed(synthesize)
    synthesize.set_defaults(run=_synthesize)


USAGE_ERROR = 2
"""Exit status for bad input of any kind (as argparse uses for usage errors)."""

INTERNAL_ERROR = 70
"""Exit status for an unexpected exception inside privcut (a bug: please report it)."""

PARTIAL_WRITE = 74
"""Exit status when a command's outputs were replaced only in part (a rename failed after
another succeeded; rare): the files on disk do not belong together; or all were replaced
but their folder could not be fsynced after (``EX_IOERR``)."""


INTERRUPTED = 128 + signal.SIGINT
"""Exit status after Ctrl-C (SIGINT), as a shell reports a program killed by it."""


SYSTEM_FOLDERS = (Path("/proc"), Path("/sys"), Path("/dev"))
"""Folders whose entries are not files to replace (links to descriptors, devices, kernel
settings): an output there is refused. ``/dev/shm``, a plain in-memory file system, is not
among them."""


def _check_writable(path: str, option: str) -> None:
    """Refuse an output path that cannot be written, before any data is read: a missing
    folder, a path in a system folder (:data:`SYSTEM_FOLDERS`), a name too long for the
    folder, a symbolic link (the rename would replace the link, not write where it
    points), a folder, a device, FIFO or socket, a file not writable. Nothing is created
    (:func:`_probe` then tries the temporary file)."""
    target = Path(path)
    folder = target.parent
    if not folder.is_dir():
        raise privcut.PrivcutError(f"{option} {path}: folder {folder} does not exist")
    real = Path(os.path.realpath(folder))
    if any(real.is_relative_to(system) for system in SYSTEM_FOLDERS) and not real.is_relative_to(
        "/dev/shm"
    ):
        raise privcut.PrivcutError(
            f"{option} {path}: in the system folder {real} (descriptors, devices or kernel "
            "settings, not files to replace); give a path in an ordinary folder"
        )
    _probe(path, option, probe=False)
    if target.is_symlink():
        raise privcut.PrivcutError(
            f"{option} {path}: a symbolic link (to {os.readlink(target)}); the output is "
            "written beside it and renamed into place, which would replace the link itself, "
            "not write where it points: give the file's own path"
        )
    if target.is_dir():
        raise privcut.PrivcutError(f"{option} {path}: is a directory; give a file name")
    if target.exists() and not target.is_file():
        raise privcut.PrivcutError(
            f"{option} {path}: not a regular file (a device, FIFO or socket), which the "
            "output would replace, as it is written beside and renamed into place; give a "
            "file path"
        )
    if target.exists() and not os.access(target, os.W_OK):
        raise privcut.PrivcutError(f"{option} {path}: not writable (permission denied)")


def _probe(path: str, option: str, probe: bool = True) -> None:
    """Refuse an output whose name does not fit its folder's NAME_MAX or (with ``probe``)
    beside which the writes' temporary file cannot be made: one is made and removed
    (:func:`privcut.files.check_replaceable`)."""
    try:
        check_replaceable(path, probe=probe)
    except OSError as error:
        if error.errno == errno.ENAMETOOLONG:
            raise privcut.PrivcutError(
                f"{option} {path}: the file {error.strerror}; give a shorter name"
            ) from None
        raise privcut.PrivcutError(
            f"{option} {path}: cannot write in {Path(path).parent}: {error.strerror}"
        ) from None


INPUTS = {
    "input": ("the input", "the private input"),
    "nodes": ("--nodes", "this public input"),
    "groups": ("--groups", "this public input"),
    "queries": ("--queries", "this public input"),
}
"""The options naming a command's input files (by attribute): as the messages name them, and
what the release would replace."""


OUTPUT_OPTIONS = ("output", "report", "communities_out")
"""The options naming a command's output files (by attribute)."""


def _check_outputs(arguments: argparse.Namespace) -> None:
    """Refuse, before any data is read, an output that cannot be written, that names the
    same file as another output (one would overwrite the other), or that is one of the
    input files (the release would replace it: the private input would be lost)."""
    seen: dict[Path, str] = {}
    given: list[tuple[str, str]] = []
    inputs = {}
    for name, named in INPUTS.items():
        source = getattr(arguments, name, None)
        if source is not None and os.path.exists(source):
            inputs[source] = named
    for option in OUTPUT_OPTIONS:
        path, flag = getattr(arguments, option, None), "--" + option.replace("_", "-")
        if path is None:
            continue
        _check_named(path, flag, arguments.command)
        if flag == "--output" and getattr(arguments, "engine", None) == "dask":
            _check_new_folder(path)
        _check_writable(path, flag)
        resolved = Path(path).resolve()
        if resolved in seen:
            raise privcut.PrivcutError(
                f"{flag} {path} is the same file as {seen[resolved]}; give each output its own"
            )
        seen[resolved] = flag
        given.append((path, flag))
        for source, (text, what) in inputs.items():
            if os.path.exists(path) and os.path.samefile(path, source):
                raise privcut.PrivcutError(
                    f"{flag} {path} is the same file as {text} {source}: the release would "
                    f"replace {what}; give the output another path"
                )
    for path, flag in given:  # last: only this changes a folder (its mtime)
        _probe(path, flag)


def _check_named(path: str, flag: str, command: str) -> None:
    """Refuse an empty output path, and ``-`` (which names no file here: ``cuts`` prints
    its answers on standard output without ``-o``)."""
    if not path:
        raise privcut.PrivcutError(f"{flag}: an empty path; give a file name")
    if path == "-":
        printed = " (without -o, cuts prints the answers on standard output)"
        raise privcut.PrivcutError(
            f"{flag} -: privcut writes no output to standard output by '-'; give a file "
            f"name (./- for a file named '-'){printed if command == 'cuts' else ''}"
        )


def _check_new_folder(path: str) -> None:
    """``--engine dask`` writes a Parquet folder at ``--output``: refuse a path that
    exists (a folder of an earlier release too), before any data is read."""
    if os.path.lexists(path):
        raise privcut.PrivcutError(
            f"--output {path} exists; --engine dask writes a Parquet folder there: remove it "
            "or give a new name"
        )


CLI_TERMS = (
    ("measurements: the dask engine does not take", "--engine dask does not take"),
    ("or the in-memory synthetic_graph", "or synthesize without --engine dask"),
    ("read the file as directed (directed=True)", "read it with --directed"),
    ("pass weight=None", "drop --weight"),
    ("(weight=None)", "(without --weight)"),
    ("(directed=False)", "(without --directed)"),
    ("rounding=None:", "--rounding none:"),
    ("rounding must be 'random'", "--rounding must be random"),
    ("raise the budget with memory=", "raise the budget with --memory"),
    ("method='sparse' or 'auto'", "--method sparse or auto"),
    ("method='sparse'", "--method sparse"),
    ("method='dense'", "--method dense"),
    ("to measurements (before", "to --measurements (before"),
    ("['edge-count', 'degrees', 'clustering']", "--measurements edge-count,degrees,clustering"),
    (
        "['edge-count', 'degree-sequence', 'assortativity']",
        "--measurements edge-count,degree-sequence,assortativity",
    ),
    (
        "['edge-count', 'filtered-randomized-response']",
        "--measurements edge-count,filtered-randomized-response",
    ),
)
"""The fixes the library's messages name in Python terms, and the command line's options
that make them (phrase, replacement): applied to every bad-input message."""


def _cli_terms(message: str) -> str:
    """``message`` with the fixes it names in Python terms named as CLI options
    (:data:`CLI_TERMS`)."""
    for phrase, option in CLI_TERMS:
        message = message.replace(phrase, option)
    return message


def _raised_by_privcut(error: BaseException) -> bool:
    """Whether an exception was raised by privcut's own code (its last frame is in privcut)."""
    frames = traceback.extract_tb(error.__traceback__)
    return bool(frames) and Path(frames[-1].filename).resolve().is_relative_to(PACKAGE)


def _one_line(error: BaseException) -> str:
    """The error's message on one line (a KeyError's without quotes; an OSError's naming the
    file)."""
    message = error.args[0] if isinstance(error, KeyError) and error.args else error
    if isinstance(error, OSError):
        message = f"cannot access {error.filename or 'a file'}: {error.strerror or error}"
    return " ".join(str(message).split())


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``privcut`` command line with ``argv`` (default ``sys.argv[1:]``).

    Every error ends the program with one line ``privcut COMMAND: error: ...`` on stderr
    and no traceback: exit status 2 for bad input (privcut's own errors, unreadable or
    unwritable files, bad options), 70 with ``error: internal error: ...; please
    report`` for anything unexpected (a bug).

    A command's outputs (``-o``, ``--report``, ``--communities-out``) are written
    together: each in full to a temporary file beside it, fsynced, and only then all
    renamed into place. A write that fails (disk full, permission denied) leaves every
    output as it was (status 2, naming the path and the fix); a rename that fails after
    another succeeded (rare) is status 74, naming the outputs replaced and those not.
    A replaced output keeps its permission bits (``0o777``); a new one gets ``0o666``
    less the umask (a Dask output folder ``0o777`` less the umask); while they are
    written, the temporary files are ``0o600`` (a Dask folder ``0o700``): see
    :class:`~privcut.files.ReplaceTogether`. Messages on stderr after the outputs were
    written (the summary) never change the exit status: a stderr that cannot be
    written (full, closed, a reader gone) drops them.

    Ctrl-C (a KeyboardInterrupt) ends ``main`` with one line ``privcut COMMAND:
    interrupted ...`` on stderr, saying whether the outputs were written, the staged
    temporary files removed, and ``SystemExit(INTERRUPTED)`` (:data:`INTERRUPTED`)
    raised to the caller, whose ``finally`` blocks and ``atexit`` handlers run. The
    ``privcut`` command itself (:func:`console`) then ends as SIGINT ends a program:
    killed by it, status 130 in a shell, and a calling script stops too. Standard
    output or error closed early (``privcut demo | head -1``) ends it quietly, with
    status :data:`CLOSED_PIPE` (128 + SIGPIPE), as command-line tools end on a closed
    pipe.
    """
    return _run(argv, final=False)


def _run(argv: Sequence[str] | None, final: bool) -> int:
    """:func:`main`; with ``final`` (for :func:`console`), SIGINT ignored
    (:func:`_ignore_late_interrupts`) as soon as the command has ended, still within the
    handler of Ctrl-C: a Ctrl-C up to that moment is reported, none after it ends the
    process (review 10 F2: one between main's return and console's ignoring it ended a
    complete release by a silent status 130)."""
    arguments = argparse.Namespace(command=None, replaced=(), staged=None)
    _open_closed_streams()
    try:
        try:
            status = _main(argv, arguments)
        except SystemExit:
            sys.stdout.flush()  # the help, or what was printed before an error
            if final:
                _ignore_late_interrupts()
            raise
        sys.stdout.flush()  # a closed pipe is reported here, not at the interpreter's exit
        if final:
            _ignore_late_interrupts()
        return status
    except KeyboardInterrupt:
        _interrupted(arguments)
    except BrokenPipeError:
        _closed_pipe()


def _open_closed_streams() -> None:
    """Point a closed standard descriptor (0, 1 or 2: ``privcut ... >&-``) at
    ``os.devnull``, and a missing ``sys.stdin``/``stdout``/``stderr`` (Python sets None
    for a descriptor closed at start-up) at it too: what would go there is dropped, files
    the command opens never land on descriptors 0-2, and the command ends as it would
    with the stream open."""
    for descriptor, name, mode in ((0, "stdin", "r"), (1, "stdout", "w"), (2, "stderr", "w")):
        try:
            os.fstat(descriptor)
        except OSError:
            opened = os.open(os.devnull, os.O_RDONLY if mode == "r" else os.O_WRONLY)
            if opened != descriptor:
                os.dup2(opened, descriptor)
                os.close(opened)
        if getattr(sys, name) is None:
            setattr(sys, name, open(descriptor, mode, closefd=False))


def _main(argv: Sequence[str] | None, arguments: argparse.Namespace) -> int:
    """:func:`main` but for Ctrl-C and a closed standard stream: parse ``argv`` into
    ``arguments``, check the outputs, run the command."""
    parser = _parser()
    parser.parse_args(argv, namespace=arguments)
    if arguments.command is None:
        parser.print_help()
        return 0
    prefix = f"privcut {arguments.command}: error:"
    try:
        _check_outputs(arguments)
        status = arguments.run(arguments)
        _to_stdout("")  # what it printed (demo): failing to write it is an error
        return status
    except PartialReplaceError as error:
        parser.exit(PARTIAL_WRITE, f"{prefix} {_partial(error)}\n")
    except Exception as error:  # never a traceback for users: one line, and a bug is marked
        if isinstance(error, BrokenPipeError) and _broken_streams():
            raise  # stdout or stderr closed early: main ends quietly
        if _bad_input(error):
            parser.exit(USAGE_ERROR, f"{prefix} {_cli_terms(_one_line(error))}\n")
        parser.exit(INTERNAL_ERROR, f"{prefix} internal error: {_internal(error)}; please report\n")


def _interrupted(arguments: argparse.Namespace) -> NoReturn:
    """After Ctrl-C: one line on stderr saying which outputs were written (none, unless
    the KeyboardInterrupt came after their renames, which hold it: see
    :class:`~privcut.files.ReplaceTogether`); then ``SystemExit(INTERRUPTED)``, which
    :func:`console` turns into the end by SIGINT. The staged temporary files are removed
    once more first (a second Ctrl-C may have cut their removal short before it began)."""
    if arguments.staged is not None:
        arguments.staged.discard()  # none left after a commit: the renamed are gone
        arguments.replaced = arguments.staged.replaced
    command = f"privcut {arguments.command}" if arguments.command else "privcut"
    outputs = [getattr(arguments, option, None) for option in OUTPUT_OPTIONS]
    outputs = [output for output in outputs if output is not None]
    replaced = ", ".join(map(str, arguments.replaced))
    if arguments.replaced and len(arguments.replaced) < len(outputs):  # a rename failed too
        message = (
            f"{command}: interrupted; the outputs were replaced only in part (replaced: "
            f"{replaced}): they do not belong together, delete them all"
        )
    elif arguments.replaced:
        message = f"{command}: interrupted after the outputs were written ({replaced})"
    elif outputs:
        message = f"{command}: interrupted; no output was written or replaced"
    else:
        message = f"{command}: interrupted"
    _say(f"{message}\n")
    raise SystemExit(INTERRUPTED)


def console() -> NoReturn:
    """The ``privcut`` command (its console entry point, and ``python -m privcut``):
    :func:`main` on ``sys.argv``, ending the process as a shell expects.

    After Ctrl-C (``main`` said which outputs were written and removed the staged
    files), or a second Ctrl-C while it says so, the process ends by SIGINT itself:
    killed by it, status 130 in a shell, so a calling script stops too (exit status
    :data:`INTERRUPTED` where SIGINT has a handler other than Python's). Once ``main``
    has ended otherwise, its status and message are final: SIGINT is ignored while the
    interpreter shuts down (:func:`_ignore_late_interrupts`), so that a Ctrl-C in that
    last moment cannot turn a complete release into a silent status 130."""
    try:
        status = _run(None, final=True)  # main(), ignoring SIGINT once it has ended
    except KeyboardInterrupt:  # a second Ctrl-C while main said the first
        _end_by_sigint()
    except SystemExit as ending:
        if ending.code == INTERRUPTED:
            _end_by_sigint()
        _ignore_late_interrupts()  # after a closed pipe's exit too
        raise
    sys.exit(status)


def _end_by_sigint() -> NoReturn:
    """End the process by SIGINT at its default action, if its handler is Python's (the
    signal is then not the program's to handle); else exit with :data:`INTERRUPTED`."""
    with _default_action(signal.SIGINT, signal.default_int_handler) as ending:
        if ending:
            signal.raise_signal(signal.SIGINT)  # killed by it: 130 in a shell, scripts stop
    raise SystemExit(INTERRUPTED)


def _ignore_late_interrupts() -> None:
    """Ignore SIGINT from now on (the interpreter's shutdown, about 0.2 s), if its handler
    is Python's, in the main thread, and nothing the shutdown waits for could hang there
    beyond Ctrl-C's reach: no other thread that is not a daemon (the shutdown joins
    them) and no child process. SIGTERM still ends the process."""
    main_thread = threading.main_thread()
    if threading.current_thread() is not main_thread:
        return
    if any(not thread.daemon for thread in threading.enumerate() if thread is not main_thread):
        return
    processes = sys.modules.get("multiprocessing")
    if processes is not None and processes.active_children():
        return
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def _say(message: str) -> None:
    """Flush stdout, then write ``message`` on stderr (:func:`_tell`); a stream that cannot
    be written is let be."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError, AttributeError):
        _broken_streams(redirect=True)
    _tell(message)


def _tell(message: str) -> None:
    """Write ``message`` on stderr and flush it; a stderr that cannot be written (full,
    closed, its reader gone: an OSError, a ValueError for a closed file object, an
    AttributeError for None) drops it (a reader gone: pointed at ``os.devnull``), never
    raising: a message after the outputs were written must not change the exit status."""
    try:
        sys.stderr.write(message)
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        _broken_streams(redirect=True)


@contextlib.contextmanager
def _default_action(number: int, handler: object) -> Iterator[bool]:
    """While the block runs, put signal ``number`` at its default action if its handler is
    ``handler`` (what Python sets for it: the signal is then not the program's to handle),
    in the main thread; yield whether it was put; the handler is set back after."""
    main = threading.current_thread() is threading.main_thread()
    if not main or signal.getsignal(number) is not handler:
        yield False
        return
    signal.signal(number, signal.SIG_DFL)
    try:
        yield True
    finally:
        signal.signal(number, handler)


CLOSED_PIPE = 128 + getattr(signal, "SIGPIPE", 13)
"""Exit status when stdout or stderr was closed early (a reader such as ``head`` left): as
for a program ended by SIGPIPE."""


def _closed_pipe() -> NoReturn:
    """Stdout or stderr is a pipe closed by its reader: point it at ``os.devnull`` (so the
    interpreter's final flush raises nothing) and exit quietly with :data:`CLOSED_PIPE`
    (as the Python documentation's note on SIGPIPE advises)."""
    _broken_streams(redirect=True)
    raise SystemExit(CLOSED_PIPE)


def _broken_streams(redirect: bool = False) -> bool:
    """Whether stdout or stderr is a pipe or socket its reader closed (``poll`` reports an
    error or hang-up on it); with ``redirect``, each such is pointed at ``os.devnull``."""
    broken = False
    for stream in (sys.stdout, sys.stderr):
        try:
            descriptor = stream.fileno()
        except (AttributeError, ValueError, OSError):  # closed, or not a real file
            continue
        if not hasattr(select, "poll"):  # Windows: no poll, and no SIGPIPE either
            break
        poll = select.poll()
        poll.register(descriptor, select.POLLOUT)
        if any(events & (select.POLLERR | select.POLLHUP) for _, events in poll.poll(0)):
            broken = True
            if redirect:
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, descriptor)
                os.close(devnull)
    return broken


def _partial(error: PartialReplaceError) -> str:
    """The message of a failure during the renames: which outputs hold this release."""
    replaced = ", ".join(map(str, error.replaced))
    if not error.kept:
        return (
            f"all outputs were replaced ({replaced}), but their folder could not be flushed "
            f"to disk ({error.strerror}): after a crash they may be lost or mixed with "
            "older ones; check the disk"
        )
    kept = ", ".join(map(str, error.kept))
    return (
        f"the outputs were replaced only in part: cannot replace {error.filename} "
        f"({error.strerror}); replaced with this release: {replaced}; NOT replaced (older "
        f"content or absent): {kept}. They do not belong together: delete them all, fix "
        "the path and run again (a new release: it spends epsilon again)"
    )


def _bad_input(error: Exception) -> bool:
    """Whether an exception reports bad input: privcut's own errors, file errors, and the
    ValueError, TypeError and KeyError raised by privcut's argument checks."""
    if isinstance(error, (privcut.PrivcutError, OSError)):
        return True
    return isinstance(error, (ValueError, TypeError, KeyError)) and _raised_by_privcut(error)


def _internal(error: BaseException) -> str:
    frames = traceback.extract_tb(error.__traceback__)
    where = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
    return f"{type(error).__name__}: {_one_line(error)}{where}"


if __name__ == "__main__":
    console()
