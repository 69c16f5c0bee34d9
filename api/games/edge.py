"""Exact house edges by enumerating dice outcomes through the engine itself.

The value of a table state is the expected amount returned to the player (stakes back plus
winnings) from the wagers under study, over every sequence of rolls until each is decided.
States form a graph (36 outcomes per Craps state, multisets with weights for ten dice);
strongly connected components are solved exactly with Fractions in reverse topological
order, so cycles (a Fire Bet whose point is made again) need no iteration to convergence.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

from .model import MOVE, Wager, evolve
from .registry import GameRules, outcomes

Edge = tuple[Fraction, object | None]  # (probability, next state or None when all decided)


@dataclass
class _Node:
    reward: Fraction
    edges: list[Edge]


@cache
def _outcome_list(n: int) -> tuple[tuple[tuple[int, ...], Fraction], ...]:
    total = 6**n
    return tuple((faces, Fraction(w, total)) for faces, w in outcomes(n))


def _expand(rules: GameRules, state, ids: frozenset[str], normalize) -> _Node:
    """One step: the expected reward of the next roll and where each outcome leads."""
    reward = Fraction(0)
    edges: list[Edge] = []
    for faces, p in _outcome_list(rules.expected_dice(state)):
        result = rules.settle(state, faces)
        decided = set()
        for line in result.lines:
            if line.wager_id in ids and line.result != MOVE:
                # A win that stays up (a Place Bet) is decided for the edge: its stake is
                # as good as returned.
                back = line.returned + (line.stake if line.stays else 0)
                reward += p * (back + line.paid + line.remainder)
                decided.add(line.wager_id)
        left = ids - decided
        still = [w for w in result.state.wagers if w.id in left]
        nxt = normalize(evolve(result.state, wagers=tuple(still))) if still else None
        edges.append((p, nxt))
    return _Node(reward, edges)


def expected_return(rules: GameRules, start, ids: Iterable[str],
                    normalize: Callable = lambda s: s) -> Fraction:
    """Expected cents returned to the player by the wagers `ids` placed on `start`."""
    ids = frozenset(ids)
    nodes: dict[object, _Node] = {}
    start = normalize(start)
    stack = [start]
    while stack:
        s = stack.pop()
        if s in nodes:
            continue
        node = nodes[s] = _expand(rules, s, ids, normalize)
        stack.extend(n for _, n in node.edges if n is not None and n not in nodes)
    return _solve(nodes)[start]


def _solve(nodes: dict[object, _Node]) -> dict[object, Fraction]:
    values: dict[object, Fraction] = {}
    for component in _components(nodes):
        members = set(component)
        if len(component) == 1:
            s = component[0]
            node = nodes[s]
            loop = sum((p for p, n in node.edges if n == s), Fraction(0))
            known = sum((p * values[n] for p, n in node.edges if n is not None and n != s),
                        Fraction(0))
            values[s] = (node.reward + known) / (1 - loop)
            continue
        values.update(_solve_linear(nodes, component, members, values))
    return values


def _solve_linear(nodes, component, members, values) -> dict[object, Fraction]:
    """Gauss-Jordan over one component: v_s - sum_inside p v_t = reward + sum_outside p v."""
    index = {s: k for k, s in enumerate(component)}
    size = len(component)
    rows = []
    for s in component:
        row = [Fraction(0)] * (size + 1)
        row[index[s]] += 1
        row[size] = nodes[s].reward
        for p, n in nodes[s].edges:
            if n is None:
                continue
            if n in members:
                row[index[n]] -= p
            else:
                row[size] += p * values[n]
        rows.append(row)
    for col in range(size):
        pivot = next(r for r in range(col, size) if rows[r][col] != 0)
        rows[col], rows[pivot] = rows[pivot], rows[col]
        inv = 1 / rows[col][col]
        rows[col] = [x * inv for x in rows[col]]
        for r in range(size):
            if r != col and rows[r][col] != 0:
                f = rows[r][col]
                rows[r] = [a - f * b for a, b in zip(rows[r], rows[col], strict=True)]
    return {s: rows[index[s]][size] for s in component}


def _components(nodes: dict[object, _Node]) -> list[list[object]]:
    """Tarjan's strongly connected components, successors first (iterative)."""
    index: dict[object, int] = {}
    low: dict[object, int] = {}
    on_stack: set[object] = set()
    stack: list[object] = []
    out: list[list[object]] = []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter([n for _, n in nodes[root].edges if n is not None]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter([n for _, n in nodes[w].edges if n is not None])))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    out.append(comp)
    return out


def house_edge(rules: GameRules, start, wagers: list[Wager], fee: int = 0,
               normalize: Callable = lambda s: s) -> Fraction:
    """Expected loss per unit risked: (stakes + fees - expected return) / (stakes + fees).

    Pushes count as stakes returned; an up-front vigorish counts as risked (623a.5(g)(3)).
    """
    risked = sum(w.amount for w in wagers) + fee
    back = expected_return(rules, start, [w.id for w in wagers], normalize)
    return (risked - back) / risked
