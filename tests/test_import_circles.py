"""No import circles anywhere in the package (issue #27): a module that imports another which
imports it back, however long the way round, makes the import order matter and the pair
impossible to read or move alone.

Every import counts, the ones inside functions too (a lazy import is how a circle hides);
only those under `if TYPE_CHECKING:` do not, since they never run (import-linter's
`exclude_type_checking_imports`). The graph is grimp's, the one the import contracts use.
"""

import grimp

PACKAGE = "desktop_app"


def circles(graph: grimp.ImportGraph, modules: set[str]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root) & modules)))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            step = next(edges, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(
                        graph.find_modules_directly_imported_by(step) & modules))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def _graph(edges: dict[str, set[str]]) -> grimp.ImportGraph:
    graph = grimp.ImportGraph()
    for importer, imported in edges.items():
        graph.add_module(importer)
        for other in imported:
            graph.add_module(other)
            graph.add_import(importer=importer, imported=other)
    return graph


def test_the_circle_finder_finds_a_long_way_round_and_nothing_else():
    graph = _graph({"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": {"e"}, "e": set(),
                    "x": {"y"}, "y": {"x"}})
    assert circles(graph, set(graph.modules)) == [["a", "b", "c"], ["x", "y"]]
    assert circles(_graph({"a": {"b"}, "b": {"c"}, "c": set()}), {"a", "b", "c"}) == []


def test_no_module_of_the_package_imports_itself_round_a_circle():
    graph = grimp.build_graph(PACKAGE, exclude_type_checking_imports=True, cache_dir=None)
    modules = {m for m in graph.modules if m == PACKAGE or m.startswith(PACKAGE + ".")}
    assert len(modules) > 200  # the whole package was read, not an empty graph
    assert circles(graph, modules) == []
