"""Block layout for imported kernels: an order in which everything between a branch and
its immediate post-dominator comes before the post-dominator, which is what the engines
reconverge by (simt/ir/cfg.py; the verifier's layout rule)."""
from __future__ import annotations

from ..ir.mir import Block, Function, Instr, Op


def _layout(blocks: list[Block]) -> list[Block]:
    """An order of the reachable blocks in which everything between a branch and its
    immediate post-dominator comes before the post-dominator (what the engines reconverge
    by): forward edges and those constraints sorted topologically, ties in reverse
    post-order. Without such an order (none found) reverse post-order is kept: threads still
    compute the same, they may reconverge later than the post-dominator."""
    from ..ir import cfg
    rpo = _reverse_postorder(_single_latches(_reverse_postorder(blocks)))
    fn = Function("layout", [], rpo)
    rank = {b.label: i for i, b in enumerate(rpo)}
    back = cfg.back_edges(fn)
    ipdom = cfg.ipdom(fn)
    constraints: dict[str, set[str]] = {b.label: set() for b in rpo}
    for b in rpo:
        if b.term.op is Op.CBR and ipdom[b.label] is not cfg.EXIT:
            join = ipdom[b.label]
            for r in cfg.region(fn, b.label, join, back):
                constraints[r].add(join)
    after = {label: set(c) for label, c in constraints.items()}
    for b in rpo:
        after[b.label] |= {x for x in b.successors if (b.label, x) not in back}
    reversed_back = _back_edges_reversed(rpo)
    order = _topological(after, rank)
    if order is None:      # an irreducible loop: its edges read the other way round may do
        after = {label: set(c) for label, c in constraints.items()}
        for b in rpo:
            after[b.label] |= {x for x in b.successors if (b.label, x) not in reversed_back}
        order = _topological(after, rank)
    if order is None or order[0] != rpo[0].label:
        return rpo
    return [fn.block(label) for label in order]


def _single_latches(blocks: list[Block]) -> list[Block]:
    """A loop entered again from several blocks gets one latch block they all branch to, so
    that lanes taking different paths through an iteration reconverge before the next one
    (that latch is the paths' immediate post-dominator; without it, the loop header is, and
    no layout puts the paths before it)."""
    from ..ir import cfg
    back = cfg.back_edges(Function("layout", [], blocks))
    sources: dict[str, list[str]] = {}
    for u, v in sorted(back, key=lambda e: [b.label for b in blocks].index(e[0])):
        sources.setdefault(v, []).append(u)
    by_label = {b.label: b for b in blocks}
    out = list(blocks)
    for header, froms in sources.items():
        if len(froms) < 2:
            continue
        latch = Block(f"{header}.latch", [Instr(Op.BR, (), (), header, by_label[froms[-1]].term.loc)])
        for u in froms:
            t = by_label[u].term
            if t.op is Op.BR:
                t.arg = latch.label
            elif t.op is Op.CBR:
                t.arg = tuple(latch.label if x == header else x for x in t.arg)
        out.append(latch)
    return out


def _topological(after: dict[str, set[str]], rank: dict[str, int]) -> list[str] | None:
    import heapq
    indegree = {label: 0 for label in after}
    for targets in after.values():
        for t in targets:
            indegree[t] += 1
    ready = [(rank[label], label) for label, n in indegree.items() if n == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        _, label = heapq.heappop(ready)
        order.append(label)
        for t in after[label]:
            indegree[t] -= 1
            if indegree[t] == 0:
                heapq.heappush(ready, (rank[t], t))
    return order if len(order) == len(after) else None


def _back_edges_reversed(rpo: list[Block]) -> set[tuple[str, str]]:
    """Back edges of a depth-first search taking successors last to first."""
    flipped = [Block(b.label, [Instr(b.term.op, (), (), (b.term.arg[1], b.term.arg[0]))
                               if b.term.op is Op.CBR else b.term]) for b in rpo]
    from ..ir import cfg
    return cfg.back_edges(Function("layout", [], flipped))


def _reverse_postorder(blocks: list[Block]) -> list[Block]:
    by_label = {b.label: b for b in blocks}
    seen: set[str] = set()
    post: list[str] = []
    stack = [(blocks[0].label, iter(blocks[0].successors))]
    seen.add(blocks[0].label)
    while stack:
        label, it = stack[-1]
        nxt = next(it, None)
        if nxt is None:
            post.append(label)
            stack.pop()
        elif nxt not in seen:
            seen.add(nxt)
            stack.append((nxt, iter(by_label[nxt].successors)))
    return [by_label[x] for x in reversed(post)]
