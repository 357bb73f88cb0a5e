"""Compiled inner loops of the exact solver (numba): forward expansion, backward distances, move rows.

The solver (:mod:`game.drivers.solver`) keeps the data model in Python and numpy: pages,
progress values, move tables. What it cannot do fast enough in numpy is the per-state
work of the search itself (millions of states, nine moves each) and the per-node work of
the move rows (:func:`cell_rows` for every track, after :func:`polygon_rows` on outlines;
used by :class:`~game.drivers.moves.MoveTables`), so those loops are compiled here with numba. They are plain functions over arrays, compiled on first call
and cached on disk next to this file (or in numba's user cache when that is read-only);
``nogil`` lets the frame loop draw while a planner thread runs them.

The rules reach the kernels only as a :class:`~game.drivers.codes.MoveRules` record
(the off-road check, whether a crash stops the car and restarts it, what it costs),
made from the rule set's predicates; the solver passes that, its pages
(:class:`~game.drivers.codes.Pages`), the move rows (:class:`~game.drivers.codes.Moves`)
and a transition table of progress ids, and the kernels follow them. A forward call stops and *asks* when it
meets something the Python side must create first (a progress transition not yet worked
out, a page not yet made, full output arrays); the caller provides it and calls again
from the same state, whose partial work the kernel has undone.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# numba reads module constants as compile-time values
from game.drivers.codes import BARRED, DRIVES, FIN, OUT, RESTART, RESTART_NEAREST, SKIP, UNKNOWN  # noqa: F401
from game.drivers.codes import EVENT_BITS, MAX_EVENTS  # the row builder's signature codes

DONE = 0  # the layer is expanded
ASK_TRANSITION = 1  # (progress id, signature id) needs its transition
ASK_PAGE = 2  # (progress id, move-table row) needs a page
ASK_REST_PAGE = 3  # (progress id, -) needs its page at rest
ASK_ROOM = 4  # output arrays are full
#: A kernel set says whether it is compiled (game.drivers.moves reads it): this one is.
compiled = True


@njit(cache=True, _nrt=False)
def _seen(bits, sid):
    return (bits[sid >> 3] >> (sid & 7)) & 1


# -- one move: what a step from a state does (the only place the drivers decide it) ------------


@njit(cache=True, _nrt=False)
def move_outcome(g, r, j, nr, pages, moves, rules):
    """What step ``j`` of page ``g`` does to a car on road node ``r``: ``(kind, node, row, page, sig, cost)``.

    The successor function of the exact search, written once: every forward kernel calls
    it and the solver's Python side runs the same function by the interpreter
    (``move_outcome.py_func``, see ``SolverTable.successors``). Compiled without reference
    counting (``_nrt=False``, it allocates nothing): with ``inline="always"`` every array of
    the three records was counted in and out at each call, six times the search's own work. It
    decides legality by the off-road check (``rules.check``; under ``projection`` the move
    the car would make without steering must stay on the road too), ice (a moving car on
    ice has only the step that changes nothing), the velocity kept where a move lands
    (sand, mud, curbs: ``pages.land_*``), and what a crash leads to (``rules.restart``,
    its cost by the speed of the move, ``rules.skips``).

    ``kind`` is one of SKIP, DRIVES, RESTART, OUT, BARRED. ``sig`` is the signature id of
    the gates crossed (for a crash: up to the crash, then those the restart jumps back
    across); ``row``/``page`` are -1 but for DRIVES (a crash's page at rest is the caller's:
    it depends on the progress after ``sig``). It calls no other compiled function, so the
    interpreter can run it on its own.
    """
    still = pages.still[g]
    if rules.terrain and moves.ice[r] and still >= 0 and j != still:
        return SKIP, np.int64(-1), np.int64(-1), np.int64(-1), np.int64(0), np.int64(0)
    row = np.int64(pages.succ_row[g, j])
    flat = row * nr + r
    info = np.int64(moves.packed[flat])
    if not (info >> 33) & 1:
        return SKIP, np.int64(-1), np.int64(-1), np.int64(-1), np.int64(0), np.int64(0)
    tgt = (info & 0xFFFFFFFF) - 1
    if rules.check == 0:
        legal = (info >> 32) & 1 == 1
    elif rules.check == 1:
        legal = tgt >= 0
    else:  # projection: the move without steering must stay on the road as well
        legal = tgt >= 0 and (moves.packed[pages.row[g] * nr + r] >> 32) & 1 == 1
    if legal:
        page = np.int64(pages.succ_page[g, j])
        if rules.terrain and moves.land[tgt] > 0:  # sand, mud, a curb: the velocity the car keeps
            c = moves.land[tgt] - 1
            row, page = np.int64(pages.land_row[g, j, c]), np.int64(pages.land_page[g, j, c])
        return DRIVES, tgt, row, page, info >> 34, np.int64(1)
    if not rules.crashes:
        return BARRED, np.int64(-1), np.int64(-1), np.int64(-1), np.int64(0), np.int64(0)
    sig = np.int64(moves.csig[flat])
    if rules.restart != RESTART_NEAREST:
        return OUT, np.int64(-1), np.int64(-1), np.int64(-1), sig, np.int64(1)
    skips = rules.skips
    cost = 1 + skips[min(np.int64(moves.speed[row]), skips.shape[0] - 1)]
    return RESTART, np.int64(moves.reset[flat]), np.int64(-1), np.int64(-1), sig, np.int64(cost)


@njit(cache=True, _nrt=False)
def spin_cost(g, pages, moves, rules):
    """What a car with no target on the sheet pays (page ``g``): under a restart rule it spins to
    rest where it stands, a crash at its own speed (the referee's ``_stuck``); 0: it is out."""
    if rules.restart != RESTART_NEAREST:
        return np.int64(0)
    skips = rules.skips
    return np.int64(1 + skips[min(np.int64(moves.speed[pages.row[g]]), skips.shape[0] - 1)])


@njit(cache=True, _nrt=False)
def _visit(bits, order, n_states, dst):
    """Queue state ``dst`` unless it was reached already; the new number of states."""
    if not _seen(bits, dst):
        bits[dst >> 3] |= np.uint8(1 << (dst & 7))
        order[n_states] = dst
        n_states += 1
    return n_states


@njit(cache=True, _nrt=False)
def _rest_edge(s, key, cost, crashed, n_crash, rest_src, rest_key, rest_cost, n_rest):
    """Keep the crash of state ``s`` to restart ``key`` at ``cost`` (the same restart again from
    this state: only a cheaper crash counts). Returns ``(n_crash, n_rest, new)``."""
    for c in range(n_crash):
        if rest_key[crashed[c]] == key:
            if cost < rest_cost[crashed[c]]:
                rest_cost[crashed[c]] = cost
            return n_crash, n_rest, False
    crashed[n_crash] = n_rest
    rest_src[n_rest], rest_key[n_rest], rest_cost[n_rest] = s, key, cost
    return n_crash + 1, n_rest + 1, True


@njit(cache=True, _nrt=False)
def _room(k, n_states, n_cross, n_rest, n_fin, order, cross_src, rest_src, finishers):
    """Whether the output arrays have room for the moves of one state with ``k`` steps."""
    return (n_states + k + 1 <= order.shape[0] and n_cross + k <= cross_src.shape[0]
            and n_rest + k + 1 <= rest_src.shape[0] and n_fin + 1 <= finishers.shape[0])


@njit(cache=True, _nrt=False)
def _forget(bits, order, start, stop):
    """Unmark the states ``order[start:stop]`` (a state's expansion undone)."""
    for c in range(start, stop):
        dst = order[c]
        bits[dst >> 3] &= np.uint8(255 - (1 << (dst & 7)))


@njit(cache=True, nogil=True)
def expand_layer(head, tail, order, bits, nr, pages, moves, rules, trans, rest_row, page_index, counts, cross_src,
                 cross_dst, rest_src, rest_key, rest_cost, finishers):
    """Expand the states ``order[head:tail]``: queue the states their moves reach, keep the odd moves.

    States are dense ids (``page * nr + road index``); ``order`` lists the reached ones
    in the order they were found and ``bits`` is their bitmap. Plain on-road moves are
    not stored (the backward pass finds them again by arithmetic, see :func:`distances`);
    gate crossings go to ``cross_src/cross_dst``, crashes and spins (to a state at rest)
    to ``rest_src`` with ``rest_key = progress id * nr + road index`` of the restart and
    their cost. States with a finishing move go to ``finishers``. ``counts`` holds
    [states, crossings, rests, finishers] and is updated in place. ``pages``, ``moves``
    and ``rules`` are the solver's :class:`~game.drivers.codes.Pages`, its move rows
    (:class:`~game.drivers.codes.Moves`) and the :class:`~game.drivers.codes.MoveRules`;
    what each move does is :func:`move_outcome`'s. ``page_index[progress id, move-table row]`` is a page (-1:
    none yet); ``rest_row`` is the row of velocity (0, 0), so pages at rest are in that column.

    Returns ``(position, ask, a, b)``: ``position == tail`` and ``ask == DONE`` when the
    layer is done; otherwise the state at ``position`` is left as it was (what it had
    done is undone) and the caller must provide what ``ask`` names (with ``a``, ``b``)
    before calling again from there.
    """
    page_pid, n_steps, succ_page = pages.pid, pages.n_steps, pages.succ_page
    resets = rules.restart == RESTART_NEAREST
    n_states, n_cross, n_rest, n_fin = counts[0], counts[1], counts[2], counts[3]
    i = head
    ask, ask_a, ask_b = DONE, 0, 0
    crashed = np.empty(succ_page.shape[1], dtype=np.int64)  # one state's rest edges so far (their index)
    while i < tail:
        s = order[i]
        g = s // nr
        r = s - g * nr
        pid = page_pid[g]
        k = n_steps[g]
        if not _room(k, n_states, n_cross, n_rest, n_fin, order, cross_src, rest_src, finishers):
            ask = ASK_ROOM
            break
        if resets and page_index[pid, rest_row] < 0:
            ask, ask_a = ASK_REST_PAGE, pid
            break
        states_before, cross_before, rest_before = n_states, n_cross, n_rest
        any_paper = finishes = False
        n_crash = 0
        for j in range(k):
            kind, node, row, page, sg, cost = move_outcome(g, r, j, nr, pages, moves, rules)
            if kind == SKIP:
                continue
            any_paper = True
            p2 = pid if sg == 0 else trans[pid, sg]
            if p2 == UNKNOWN:
                ask, ask_a, ask_b = ASK_TRANSITION, pid, sg
                break
            if p2 == FIN and kind != BARRED:
                finishes = True
                continue
            if p2 < 0 or kind == OUT or kind == BARRED:
                continue
            # a page of progress p2: the velocity kept (DRIVES) or at rest (RESTART)
            want = row if kind == DRIVES else rest_row
            dst_page = page if kind == DRIVES and sg == 0 else page_index[p2, want]
            if dst_page < 0:
                ask, ask_a, ask_b = (ASK_PAGE, p2, want) if kind == DRIVES else (ASK_REST_PAGE, p2, 0)
                break
            dst = dst_page * nr + node
            if kind == RESTART:
                n_crash, n_rest, new = _rest_edge(s, p2 * nr + node, cost, crashed, n_crash, rest_src, rest_key,
                                                  rest_cost, n_rest)
                if not new:
                    continue
            elif sg != 0 or page != succ_page[g, j]:  # a crossing, or slowed by the terrain: kept as an edge
                cross_src[n_cross], cross_dst[n_cross] = s, dst
                n_cross += 1
            n_states = _visit(bits, order, n_states, dst)
        if ask != DONE:  # undo this state's moves; it is expanded again once the caller has answered
            _forget(bits, order, states_before, n_states)
            n_states, n_cross, n_rest = states_before, cross_before, rest_before
            break
        if resets and not any_paper:  # no target on the sheet: the car spins and stays, at rest
            rest_src[n_rest], rest_key[n_rest] = s, pid * nr + r
            rest_cost[n_rest] = spin_cost(g, pages, moves, rules)
            n_rest += 1
            n_states = _visit(bits, order, n_states, page_index[pid, rest_row] * nr + r)
        if finishes:
            finishers[n_fin] = s
            n_fin += 1
        i += 1
    counts[0], counts[1], counts[2], counts[3] = n_states, n_cross, n_rest, n_fin
    return i, ask, ask_a, ask_b


@njit(cache=True, nogil=True)
def rest_sources(n_keys, rest_key):
    """The crash and spin edges grouped by their restart state: ``(start, index)`` of a counting sort."""
    n = rest_key.shape[0]
    start = np.zeros(n_keys + 1, dtype=np.int64)
    for e in range(n):
        start[rest_key[e] + 1] += 1
    for k in range(n_keys):
        start[k + 1] += start[k]
    fill = start[:-1].copy()
    index = np.empty(n, dtype=np.int64)
    for e in range(n):
        index[fill[rest_key[e]]] = e
        fill[rest_key[e]] += 1
    return start, index


@njit(cache=True, _nrt=False)
def _lower(dist, cand, nd, queue, sizes):
    """Give state ``cand`` the distance ``nd`` if that is shorter, and queue it (queue ``nd`` modulo their
    number; the caller made room)."""
    if dist[cand] > nd:
        dist[cand] = nd
        nb = nd % sizes.shape[0]
        queue[nb, sizes[nb]] = cand
        sizes[nb] += 1


@njit(cache=True, _nrt=False)
def _plain_into(s, d, dist, bits, nr, width, height, xs, ys, road_index, pages, page_vx, page_vy, preds, moves,
                rules, queue, sizes):
    """The plain on-road moves into state ``s`` (at distance ``d``), found by arithmetic (see :func:`distances`)."""
    page_row, keeps, still = pages.row, pages.keeps, pages.still
    packed, land, ice = moves.packed, moves.land, moves.ice
    check, terrain = rules.check, rules.terrain
    g2 = s // nr
    q = s - g2 * nr
    px, py = xs[q] - page_vx[g2], ys[q] - page_vy[g2]
    if not (0 <= px < width and 0 <= py < height):
        return
    p = road_index[py * width + px]
    if p < 0:
        return
    info = packed[page_row[g2] * nr + p]
    if not (info >> 34 == 0 and (info >> 33) & 1 and (check != 0 or (info >> 32) & 1)):
        return
    if terrain and land[q] > 0 and not keeps[g2, land[q] - 1]:
        return  # no move keeps this velocity landing here
    hold = terrain and ice[p]
    for k in range(preds.shape[1]):
        g = preds[g2, k]
        if g < 0:
            break
        if hold and still[g] >= 0 and g != g2:
            continue  # a car moving on ice only repeats its move
        if check == 2 and not (packed[page_row[g] * nr + p] >> 32) & 1:
            continue
        cand = g * nr + p
        if _seen(bits, cand):
            _lower(dist, cand, d + 1, queue, sizes)


@njit(cache=True, _nrt=False)
def _crossings_span(s, cross_dst_sorted):
    """Where the gate crossings into state ``s`` are in the sorted destinations: ``(first, end)``."""
    n_cross = cross_dst_sorted.shape[0]
    lo, hi = 0, n_cross
    while lo < hi:
        mid = (lo + hi) // 2
        if cross_dst_sorted[mid] < s:
            lo = mid + 1
        else:
            hi = mid
    end = lo
    while end < n_cross and cross_dst_sorted[end] == s:
        end += 1
    return lo, end


@njit(cache=True)
def _roomier(queue, sizes, more):
    """``queue`` with room for ``more`` entries in every row (twice as wide as needed, when it must grow)."""
    if sizes.max() + more <= queue.shape[1]:
        return queue
    grown = np.empty((queue.shape[0], 2 * (sizes.max() + more)), dtype=np.int64)
    grown[:, :queue.shape[1]] = queue
    return grown


@njit(cache=True, nogil=True)
def distances(dist, reached, bits, finishers, nr, width, height, xs, ys, road_index, pages, page_vx, page_vy,
              preds, moves, rules, cross_src, cross_dst_sorted, cross_order, cross_pages, rest_src, rest_cost,
              rest_start, rest_index):
    """Moves to the finish of every reached state, written into ``dist`` (a dense int16 array).

    ``reached`` lists the reached states; ``dist`` is only read and written there.
    Distances grow outwards from the finishing states (distance 1) with one queue per
    distance, modulo ``rules.max_cost + 1`` (at least 3): no move costs more. The plain
    on-road moves into a state ``(page, q)`` are found by arithmetic (:func:`_plain_into`):
    they came from node ``q - v`` (``v`` the page's velocity) on one of the pages
    ``preds[page]`` whose steps lead to this velocity, if that move is on the road, crosses
    no gate and its state was reached: the inverse of :func:`move_outcome`'s legal moves.
    With terrain (``rules.terrain``) that holds only where a move by ``v`` landing on ``q``
    keeps ``v`` (``pages.keeps``: the moves the terrain slowed into ``s`` are edges of their
    own, kept with the crossings by :func:`expand_layer`), and from a node on ice only for
    the pages at rest and the page's own velocity (a moving car on ice repeats its move).
    Crossings come from ``cross_*`` (destinations sorted, ``cross_order`` the sort,
    ``cross_pages`` flags the pages they lead into) and crashes and spins from the rest
    edges grouped by :func:`rest_sources`.

    The helpers it calls per state are compiled without numba's reference counting
    (``_nrt=False``: they allocate nothing); inlined, every array they take was counted
    in and out at each call, which cost more than the search itself (4x on a 200x120 ring).
    The queues are the rows of one array, made roomier before a state is worked on.
    """
    n_queues = max(3, rules.max_cost + 1)
    for s in reached:
        dist[s] = 32767  # cannot finish, until a way is found
    queue = np.empty((n_queues, max(1024, 2 * finishers.shape[0])), dtype=np.int64)
    sizes = np.zeros(n_queues, dtype=np.int64)
    for f in finishers:
        _lower(dist, f, 1, queue, sizes)
    d = 1
    while sizes.sum() > 0 and d < 32000:
        b = d % n_queues
        m = 0
        while m < sizes[b]:  # the queue only grows with distances above d, never d
            s = queue[b, m]
            m += 1
            if dist[s] != d:
                continue
            g2 = s // nr
            first = end = key = 0
            if cross_pages[g2]:
                first, end = _crossings_span(s, cross_dst_sorted)
            at_rest = page_vx[g2] == 0 and page_vy[g2] == 0
            if at_rest:
                key = pages.pid[g2] * nr + s - g2 * nr
            more = preds.shape[1] + end - first + (rest_start[key + 1] - rest_start[key] if at_rest else 0)
            queue = _roomier(queue, sizes, more)
            _plain_into(s, d, dist, bits, nr, width, height, xs, ys, road_index, pages, page_vx, page_vy, preds,
                        moves, rules, queue, sizes)
            for e in range(first, end):
                _lower(dist, cross_src[cross_order[e]], d + 1, queue, sizes)
            if at_rest:  # crashes and spins into s, a state at rest
                for e in range(rest_start[key], rest_start[key + 1]):
                    edge = rest_index[e]
                    # int8 + int stays int8 in the interpreter
                    _lower(dist, rest_src[edge], d + np.int64(rest_cost[edge]), queue, sizes)
        sizes[b] = 0
        d += 1




@njit(cache=True)
def _sort_events(gate, direction, num, den, number, count):
    """Insertion sort of ``count`` events by time ``num/den`` (exact), then gate number: the referee's order."""
    for a in range(1, count):
        g, d, tn, td = gate[a], direction[a], num[a], den[a]
        b = a - 1
        while b >= 0:
            left = num[b] * td
            right = tn * den[b]
            if left > right or (left == right and number[gate[b]] > number[g]):
                gate[b + 1], direction[b + 1], num[b + 1], den[b + 1] = gate[b], direction[b], num[b], den[b]
                b -= 1
            else:
                break
        gate[b + 1], direction[b + 1], num[b + 1], den[b + 1] = g, d, tn, td


@njit(cache=True, inline="always")
def _nearest_in_box(cx, cy, fx, fy, lo, hi, road_index, width, height):
    """The road node nearest (cx, cy) among nodes (fx + ox, fy + oy), lo <= ox, oy < hi: (index, squared distance)."""
    best, best_d = -1, np.inf
    for oy in range(lo, hi):  # row-major with a strict "<": ties go to the smallest y, then x
        for ox in range(lo, hi):
            nx, ny = fx + ox, fy + oy
            if 0 <= nx < width and 0 <= ny < height:
                cand = road_index[ny * width + nx]
                d2 = (nx - cx) ** 2 + (ny - cy) ** 2
                if cand >= 0 and d2 < best_d:
                    best, best_d = cand, d2
    return best, best_d


@njit(cache=True)
def _nearest_road_node(cx, cy, xs, ys, road_index, width, height):
    """Road index of ``Track.nearest_road_node((cx, cy))``, with the same arithmetic and tie rule.

    The four nodes around the point first (a node nearer than 1 there is the answer: any
    other is at least 1 away), then the core's 8x8 window, then every road node. Nodes
    are tried in row-major order with a strict ``<``, which keeps the rule "ties: smallest
    y, then x".
    """
    fx, fy = np.int64(np.floor(cx)), np.int64(np.floor(cy))
    best, best_d = _nearest_in_box(cx, cy, fx, fy, 0, 2, road_index, width, height)
    if best_d < 1.0:
        return best
    # the core's window (Track.nearest_road_nodes, window=3)
    best, best_d = _nearest_in_box(cx, cy, fx, fy, -3, 5, road_index, width, height)
    if best_d <= 9.0:
        return best
    best, best_d = -1, np.inf
    for r in range(xs.shape[0]):
        d2 = (xs[r] - cx) ** 2 + (ys[r] - cy) ** 2
        if d2 < best_d:
            best, best_d = r, d2
    return best


@njit(cache=True)
def _encode(gate, direction, start, count):
    """One int64 for the (gate, direction) events ``start:start + count``: EVENT_BITS each, first event lowest."""
    code = 0
    for a in range(start + count - 1, start - 1, -1):
        code = (code << EVENT_BITS) + 2 * gate[a] + (1 if direction[a] > 0 else 0) + 1
    return code


@njit(cache=True, inline="always")
def _line_crossing(gate, px, py, dx, dy):
    """``(direction, num, den)`` of the move from node (px, py) by (dx, dy) across a line gate
    (``gate``: its ends and normal times 1024, integers): direction 0 when it does not cross,
    else +1 forward or -1 backward at time ``num / den`` (``Gate.crossing``'s arithmetic)."""
    ax, ay, bx, by, nx, ny = gate[0], gate[1], gate[2], gate[3], gate[4], gate[5]
    P, Q = px * 1024, py * 1024
    s_p = nx * (P - ax) + ny * (Q - ay)
    s_q = s_p + (nx * dx + ny * dy) * 1024
    fwd = s_p < 0 and s_q >= 0
    back = s_q < 0 and s_p >= 0
    o_a = dx * (ay - Q) - dy * (ax - P)
    o_b = dx * (by - Q) - dy * (bx - P)
    if not (fwd or back) or np.sign(o_a) * np.sign(o_b) > 0:
        return 0, 0, 1
    num, den = s_p, s_p - s_q
    if den < 0:
        num, den = -num, -den
    if den == 0:
        den = 1
    return (1 if fwd else -1), num, den


@njit(cache=True, inline="always")
def _cell_visit(cells, is_open, c_from, c1, px, py, cell_x, cell_y, cell_tn, cell_td):
    """``(direction, num, den)`` of the move's visit to a cell gate (``cells``: [y, x] flags): +1 at
    the entry time of the first of its cells among the move's cells ``c_from:c1``, 0 when none (or
    when the gate does not count this direction, ``is_open`` False)."""
    if is_open:
        height, width = cells.shape
        for c in range(c_from, c1):
            gx, gy = px + cell_x[c], py + cell_y[c]
            if 0 <= gx < width and 0 <= gy < height and cells[gy, gx]:
                return 1, cell_tn[c], cell_td[c]
    return 0, 0, 1


@njit(cache=True, inline="always")
def _jumps_back(gate, cx, cy, ex, ey):
    """Whether a restart from the crash point (cx, cy) to the node (ex, ey) jumps back across the
    line gate (``gate``: ends and normal as floats), with ``Gate.signed_distance``'s arithmetic."""
    ax, ay, bx, by, nx, ny = gate[0], gate[1], gate[2], gate[3], gate[4], gate[5]
    norm = (nx * nx + ny * ny) ** 0.5
    if norm == 0.0:
        norm = 1.0
    before = ((cx - ax) * nx + (cy - ay) * ny) / norm
    after = ((ex - ax) * nx + (ey - ay) * ny) / norm
    jx, jy = ex - cx, ey - cy
    o1 = jx * (ay - cy) - jy * (ax - cx)
    o2 = jx * (by - cy) - jy * (bx - cx)
    return before >= 0 and 0 > after and o1 * o2 <= 0


@njit(cache=True, inline="always")
def _first_off_road(grid, base, stride, c0, c1, cell_x, cell_y):
    """The first of a move's cells ``c0 + 1:c1`` off the road (``grid``: the padded road, the move's
    start cell at ``base``), -1 when every one is road (the start cell is: every row is a road node)."""
    for c in range(c0 + 1, c1):
        if not grid[base + cell_y[c] * stride + cell_x[c]]:
            return c
    return -1


@njit(cache=True, inline="always")
def _gate_events(i, px, py, dx, dy, c0, c1, walks, gates, ev_gate, ev_dir, ev_num, ev_den):
    """Every gate event of row i's move from node (px, py) (its cells ``walks`` ``c0:c1``), in the
    referee's order (time, then gate number), into ``ev_*[0:count]``; returns the count. A
    standstill on a checkpoint cell visits it, as the referee counts."""
    n_ev = 0
    for gi in range(gates.kind.shape[0]):
        if gates.kind[gi] == 0:
            d, tn, td = _line_crossing(gates.ints[gi], px, py, dx, dy)
        else:
            d, tn, td = _cell_visit(gates.cells[gi], gates.open[i, gi], c0 + 1 if gates.entered[gi] else c0, c1,
                                    px, py, walks.x, walks.y, walks.tn, walks.td)
        if d != 0:
            ev_gate[n_ev], ev_dir[n_ev], ev_num[n_ev], ev_den[n_ev] = gi, d, tn, td
            n_ev += 1
    _sort_events(ev_gate, ev_dir, ev_num, ev_den, gates.number, n_ev)
    return n_ev


@njit(cache=True, inline="always")
def _crash_events(n_ev, stop_num, stop_den, cx, cy, ex, ey, gates, ev_gate, ev_dir, ev_num, ev_den, at):
    """The events of a punished move, written from ``at`` (returns their count): its crossings
    ``ev_*[0:n_ev]`` up to the crash at ``stop_num / stop_den``, then the line gates the restart
    from the crash point (cx, cy) to the node (ex, ey) jumps back across (the referee's _teleport)."""
    m = at
    for a in range(n_ev):
        if ev_num[a] * stop_den <= stop_num * ev_den[a]:
            ev_gate[m], ev_dir[m] = ev_gate[a], ev_dir[a]
            m += 1
    for gi in range(gates.kind.shape[0]):
        if gates.kind[gi] == 0 and _jumps_back(gates.floats[gi], cx, cy, ex, ey):
            ev_gate[m], ev_dir[m] = gi, -1
            m += 1
    return m - at


@njit(cache=True, nogil=True)
def cell_rows(first, last, rows, dxs, dys, walks, sheet, outline, gates, rules, out):
    """Move-table rows for every road node: the one row builder of ``MoveTables``.

    Row ``rows[i]`` (for ``first <= i < last``: two threads can share a batch) is the
    move by ``(dxs[i], dys[i])``; its cells (from ``cells_along``) are ``walks``
    (:class:`~game.drivers.codes.Walks`), the road is ``sheet`` (:class:`~game.drivers.codes.Sheet`),
    and on an outline (``outline.given``) the on-road test and the exit fraction of each
    move come from ``outline`` (at ``i * n + node``) instead of the cell walk. ``gates`` is a
    :class:`~game.drivers.codes.GateArrays`. Writes ``out`` (:class:`~game.drivers.codes.RowsOut`):
    target, paper, inside, and for punished moves the restart node, at ``row * n + node``;
    signatures as codes (see ``_encode``) at ``i * n + node``, where ``slow`` marks moves with
    more events than a code holds. For such a move the caller asks again for that one node
    (``out.only``) and reads its events from ``out.events`` / ``out.counts``.
    """
    xs, ys, road_index, width, height = sheet.xs, sheet.ys, sheet.road_index, sheet.width, sheet.height
    grid, pad = sheet.grid, sheet.pad
    target, paper, inside, sig_code = out.target, out.paper, out.inside, out.sig_code
    reset, csig_code, slow = out.reset, out.csig_code, out.slow
    check, needs_reset = rules.check, rules.crashes
    n = xs.shape[0]
    stride = width + 2 * pad
    n_gates = gates.kind.shape[0]
    # scratch: a move's events at 0.., a punished move's from n_gates (up to 2 * n_gates of them)
    ev_gate = np.zeros(3 * n_gates + 1, dtype=np.int64)
    ev_dir = np.zeros_like(ev_gate)
    ev_num = np.zeros_like(ev_gate)
    ev_den = np.ones_like(ev_gate)
    lo, hi = (0, n) if out.only < 0 else (out.only, out.only + 1)
    for i in range(first, last):
        o = rows[i]
        dx, dy = dxs[i], dys[i]
        c0, c1 = walks.start[i], walks.start[i + 1]
        for r in range(lo, hi):
            at = o * n + r  # in the tables
            rel = i * n + r  # in the code and slow arrays
            px, py = xs[r], ys[r]
            qx, qy = px + dx, py + dy
            on_paper = 0 <= qx < width and 0 <= qy < height
            paper[at] = on_paper
            tgt = road_index[qy * width + qx] if on_paper else -1
            target[at] = tgt
            first_bad = -1
            if outline.given:  # an outline: on-road tests and exit fractions worked out by polygon_rows
                ok = outline.inside[rel] and on_paper and tgt >= 0
            else:
                first_bad = _first_off_road(grid, (py + pad) * stride + (px + pad), stride, c0, c1, walks.x, walks.y)
                ok = first_bad < 0 and on_paper
            inside[at] = ok
            sig_code[rel] = 0
            if not on_paper:
                continue
            n_ev = _gate_events(i, px, py, dx, dy, c0, c1, walks, gates, ev_gate, ev_dir, ev_num, ev_den)
            many = n_ev > MAX_EVENTS
            if not many:
                sig_code[rel] = _encode(ev_gate, ev_dir, 0, n_ev)
            m = 0
            if needs_reset and not ((check == 0 and ok) or (check == 1 and tgt >= 0)):  # punished (projection: any)
                stop_num, stop_den = 1, 1  # where the crash stops the car: segment check, where it leaves the road
                if check == 0:
                    stop_num, stop_den = ((outline.num[rel], outline.den[rel]) if outline.given else
                                          (walks.tn[first_bad], walks.td[first_bad]) if first_bad >= 0 else (1, 1))
                # the crash point, rounded as float(Fraction) is, and the nearest road node around it
                cx = (px * stop_den + stop_num * dx) / stop_den
                cy = (py * stop_den + stop_num * dy) / stop_den
                best = _nearest_road_node(cx, cy, xs, ys, road_index, width, height)
                reset[at] = best
                m = _crash_events(n_ev, stop_num, stop_den, cx, cy, float(xs[best]), float(ys[best]), gates,
                                  ev_gate, ev_dir, ev_num, ev_den, n_gates)
                if m > MAX_EVENTS:
                    many = True
                else:
                    csig_code[rel] = _encode(ev_gate, ev_dir, n_gates, m)
            if many:
                slow[rel] = True
            if out.only >= 0:  # the caller reads this move's events itself
                out.counts[0], out.counts[1] = n_ev, m
                for a in range(n_ev):
                    out.events[0, a], out.events[1, a] = ev_gate[a], ev_dir[a]
                for a in range(m):
                    out.events[2, a], out.events[3, a] = ev_gate[n_gates + a], ev_dir[n_gates + a]


@njit(cache=True, inline="always")
def _edge_meets(px, py, ddx, ddy, ax, ay, bx, by, length2, out_ok, in_ok):
    """How the move from ``(px, py)`` by ``(ddx, ddy)`` meets the border edge ``a -> b`` (all times
    ``snap``, integers): ``(blocked, t_num, t_den)``, blocked when the edge takes the move off the
    road there, and where it leaves (``t_num`` -1: it does not leave here). ``out_ok``/``in_ok``: the
    move's direction (and its reverse) lies in the road wedge at the edge's start vertex.
    """
    ex, ey = bx - ax, by - ay
    e_len2 = ex * ex + ey * ey
    goes_in = ex * ddy - ey * ddx
    qx, qy = px + ddx, py + ddy
    o_p = ex * (py - ay) - ey * (px - ax)
    o_q = ex * (qy - ay) - ey * (qx - ax)
    o_a = ddx * (ay - py) - ddy * (ax - px)
    o_b = ddx * (by - py) - ddy * (bx - px)
    proper = np.sign(o_p) * np.sign(o_q) < 0 and np.sign(o_a) * np.sign(o_b) < 0
    along = (ax - px) * ddx + (ay - py) * ddy
    on_seg = o_a == 0 and 0 <= along <= length2
    at_start = on_seg and ax == px and ay == py
    at_end = on_seg and ax == qx and ay == qy
    t_p = (px - ax) * ex + (py - ay) * ey
    t_q = (qx - ax) * ex + (qy - ay) * ey
    p_on_edge = o_p == 0 and 0 < t_p < e_len2
    q_on_edge = o_q == 0 and 0 < t_q < e_len2
    blocked = (proper or (on_seg and not at_end and not out_ok) or (on_seg and not at_start and not in_ok)
               or (p_on_edge and goes_in < 0) or (q_on_edge and goes_in > 0))
    # where the move leaves here, if it does: the last rule that applies wins
    t_num, t_den = -1, 1
    if proper:
        cn = (ax - px) * ey - (ay - py) * ex
        cd = ddx * ey - ddy * ex
        if cd < 0:
            cn, cd = -cn, -cd
        t_num, t_den = cn, cd
    if o_a == 0 and along >= 0 and along < length2 and not out_ok:
        t_num, t_den = along, length2
    if p_on_edge and goes_in < 0:
        t_num, t_den = 0, 1
    return blocked, t_num, t_den


@njit(cache=True, nogil=True)
def polygon_rows(first, last, dxs, dys, snap, a, b, lo, hi, index, xs, ys, wedge_out, wedge_in,
                 inside, exit_num, exit_den):
    """Exact on-road tests and exit fractions of moves on an outline (``segments_inside``, ``exit_fractions``).

    For row i (``first <= i < last``), offset ``(dxs[i], dys[i])``: ``inside[i * n + node]``
    says whether the move from road node ``node`` stays on the road, and for one that
    leaves, ``exit_num/exit_den`` is where it first leaves (the smallest exit fraction,
    compared exactly). Border edge e runs from ``a[e]`` to ``b[e]`` (coordinates times
    ``snap``, integers); ``lo/hi`` are the edges' boxes in squares; ``wedge_out[i, e]`` and
    ``wedge_in[i, e]`` say whether the move's direction (and its reverse) lies in the road
    wedge at the edge's start vertex (``PolygonRegion._in_wedge``). Only the nodes whose
    move's box meets an edge's box are looked at (``moves.OutlineEdges`` gives the edges).
    """
    n = xs.shape[0]
    height, width = index.shape
    for i in range(first, last):
        dx, dy = dxs[i], dys[i]
        base = i * n
        for r in range(n):
            inside[base + r] = True
            exit_num[base + r] = -1
            exit_den[base + r] = 1
        if dx == 0 and dy == 0:
            for r in range(n):
                exit_num[base + r] = 0
            continue
        ddx, ddy = dx * snap, dy * snap
        length2 = ddx * ddx + ddy * ddy
        for e in range(a.shape[0]):
            x0 = max(np.int64(np.ceil(lo[e, 0] - max(dx, 0))), 0)
            x1 = min(np.int64(np.floor(hi[e, 0] - min(dx, 0))), width - 1)
            y0 = max(np.int64(np.ceil(lo[e, 1] - max(dy, 0))), 0)
            y1 = min(np.int64(np.floor(hi[e, 1] - min(dy, 0))), height - 1)
            ax, ay, bx, by = a[e, 0], a[e, 1], b[e, 0], b[e, 1]
            out_ok, in_ok = wedge_out[i, e], wedge_in[i, e]
            for ny in range(y0, y1 + 1):
                for nx in range(x0, x1 + 1):
                    r = index[ny, nx]
                    if r < 0:
                        continue
                    blocked, t_num, t_den = _edge_meets(xs[r] * snap, ys[r] * snap, ddx, ddy, ax, ay, bx, by,
                                                        length2, out_ok, in_ok)
                    if blocked:
                        inside[base + r] = False
                    if t_num >= 0:
                        old_num, old_den = exit_num[base + r], exit_den[base + r]
                        if old_num < 0 or t_num * old_den < old_num * t_den:
                            exit_num[base + r], exit_den[base + r] = t_num, t_den
        for r in range(n):  # a move that stays on the road has no exit (0 / 1)
            if inside[base + r] or exit_num[base + r] < 0:
                exit_num[base + r], exit_den[base + r] = 0, 1


@njit(cache=True, nogil=True)
def pack_rows(target, inside, paper, sig, packed, start, stop):
    """``packed[k] = (target + 1) | inside << 32 | paper << 33 | sig << 34`` for ``start <= k < stop``.

    The one number per move the search kernels read (see ``MoveTables.packed``).
    """
    for k in range(start, stop):
        packed[k] = ((target[k] + 1) | (np.int64(inside[k]) << 32) | (np.int64(paper[k]) << 33)
                     | (np.int64(sig[k]) << 34))


# -- the layered search (tracks whose every gate is a cell gate: Karopapier maps) ------------

@njit(cache=True, nogil=True)
def reach_layer(head, tail, order, bits, n_states, nr, pages, moves, rules, rest_page):
    """Expand ``order[head:tail]`` ignoring every gate: the states a lone car can stand in at all.

    States are ``page * nr + road index`` with one page per velocity. ``rest_page`` is the
    page of velocity (0, 0) (crash and spin destinations under reset rules). Returns
    ``(states, position)``: the new number of states and how far it got; a ``position``
    before ``tail`` means ``order`` has no room for that state's moves (nothing of it is
    done): grow ``order`` and call again from there with the returned count.
    """
    n_steps = pages.n_steps
    resets = rules.restart == RESTART_NEAREST
    i = head
    while i < tail:
        s = order[i]
        g = s // nr
        r = s - g * nr
        k = n_steps[g]
        if n_states + k + 1 > order.shape[0]:
            return n_states, i
        any_paper = False
        for j in range(k):
            kind, node, row, page, sg, cost = move_outcome(g, r, j, nr, pages, moves, rules)
            if kind == SKIP:
                continue
            any_paper = True
            dst = -1
            if kind == DRIVES:
                dst = page * nr + node
            elif kind == RESTART:
                dst = rest_page * nr + node
            if dst >= 0 and not _seen(bits, dst):
                bits[dst >> 3] |= np.uint8(1 << (dst & 7))
                order[n_states] = dst
                n_states += 1
        if resets and not any_paper:
            dst = rest_page * nr + r
            if not _seen(bits, dst):
                bits[dst >> 3] |= np.uint8(1 << (dst & 7))
                order[n_states] = dst
                n_states += 1
        i += 1
    return n_states, i


@njit(cache=True, nogil=True)
def layer_edges(fill, states, uidx, nr, pages, moves, rules, rest_page, plain_count, plain_src, spec_src, spec_dst,
                spec_sig, spec_cost):
    """Every move of the states ``states`` (sorted state ids; ``uidx`` maps an id to its place).

    First call with ``fill`` False: counts each state's incoming plain moves (on the road,
    no gate) into ``plain_count[dst + 1]`` and returns the number of *special* moves (a
    gate visit, a crash, a spin: what may change the progress or cost more than one move).
    Then, with ``plain_count`` turned into start offsets, call again with ``fill`` True to
    write ``plain_src`` (grouped by destination) and ``spec_*`` (source, destination state
    index or -1, signature id, cost). ``plain_count`` is used as the fill cursor then.
    """
    n_steps = pages.n_steps
    resets = rules.restart == RESTART_NEAREST
    n_spec = 0
    for u in range(states.shape[0]):
        s = states[u]
        g = s // nr
        r = s - g * nr
        any_paper = False
        for j in range(n_steps[g]):
            kind, node, row, page, sg, cost = move_outcome(g, r, j, nr, pages, moves, rules)
            if kind == SKIP:
                continue
            any_paper = True
            if kind == DRIVES:
                dst = uidx[page * nr + node]
                if sg == 0:
                    if fill:
                        plain_src[plain_count[dst]] = u
                        plain_count[dst] += 1
                    else:
                        plain_count[dst + 1] += 1
                else:
                    if fill:
                        spec_src[n_spec], spec_dst[n_spec], spec_sig[n_spec], spec_cost[n_spec] = u, dst, sg, 1
                    n_spec += 1
            elif kind == RESTART or (kind == OUT and sg != 0):  # out having crossed nothing: no edge
                dst = uidx[rest_page * nr + node] if kind == RESTART else -1
                if fill:
                    spec_src[n_spec], spec_dst[n_spec], spec_sig[n_spec], spec_cost[n_spec] = u, dst, sg, cost
                n_spec += 1
        if resets and not any_paper:  # no target on the sheet: the car spins where it stands
            if fill:
                spec_src[n_spec], spec_dst[n_spec], spec_sig[n_spec] = u, uidx[rest_page * nr + r], 0
                spec_cost[n_spec] = spin_cost(g, pages, moves, rules)
            n_spec += 1
    return n_spec


@njit(cache=True)
def _seed_values(pid, row, inf, dist, trans, spec_src, spec_dst, spec_sig, spec_cost):
    """The states of progress ``pid`` whose special moves leave it (a finish: 1, another progress:
    its cost plus the distance there) get that value in ``row``; True when one does not fit below ``inf``."""
    overflow = False
    for e in range(spec_src.shape[0]):
        sg = spec_sig[e]
        t = pid if sg == 0 else trans[pid, sg]
        if t == pid or t == -1:
            continue
        if t == FIN:
            value = 1  # a finishing move counts one, even one that leaves the road after the line
        else:
            dst = spec_dst[e]
            if dst < 0 or dist[t, dst] >= inf:
                continue
            value = spec_cost[e] + np.int64(dist[t, dst])
            if value >= inf:
                overflow = True
                continue
        u = spec_src[e]
        if value < row[u]:
            row[u] = value
    return overflow


@njit(cache=True)
def _seeds_in_order(row, inf):
    """The states with a value in ``row`` (below ``inf``), by value: a counting sort (values are small)."""
    n = row.shape[0]
    top = 0
    n_seed = 0
    for u in range(n):
        if row[u] < inf:
            n_seed += 1
            top = max(top, np.int64(row[u]))
    start = np.zeros(top + 2, dtype=np.int64)
    for u in range(n):
        if row[u] < inf:
            start[row[u] + 1] += 1
    for v in range(top + 1):
        start[v + 1] += start[v]
    seeds = np.empty(n_seed, dtype=np.int32)
    for u in range(n):
        if row[u] < inf:
            seeds[start[row[u]]] = u
            start[row[u]] += 1
    return seeds


@njit(cache=True, _nrt=False)
def _mark(marks, lo, hi, b, u):
    """Mark state ``u`` in queue ``b`` (widening the queue's span of words); True when it was not marked yet."""
    w = u >> 6
    bit = np.uint64(1) << np.uint64(u & 63)
    lo[b] = min(lo[b], w)
    hi[b] = max(hi[b], w + 1)
    if marks[b, w] & bit:
        return False
    marks[b, w] |= bit
    return True


@njit(cache=True)
def _spread(pid, u, d, row, inf, trans, plain_start, plain_src, spec_src, spec_sig, spec_cost, spec_start,
            spec_index, marks, lo, hi):
    """Pass distance ``d`` of state ``u`` back through the moves into it that keep progress ``pid``.
    Returns ``(marks set, overflow)``."""
    n_queues = marks.shape[0]
    queued = 0
    overflow = False
    nd = d + 1
    if nd >= inf:
        overflow = True
    else:
        for e in range(plain_start[u], plain_start[u + 1]):
            src = plain_src[e]
            if row[src] > nd:
                row[src] = nd
                queued += _mark(marks, lo, hi, nd % n_queues, src)
    for k in range(spec_start[u], spec_start[u + 1]):
        e = spec_index[k]
        sg = spec_sig[e]
        if sg != 0 and trans[pid, sg] != pid:
            continue
        src = spec_src[e]
        nd2 = d + spec_cost[e]
        if nd2 >= inf:
            overflow = True
        elif row[src] > nd2:
            row[src] = nd2
            queued += _mark(marks, lo, hi, nd2 % n_queues, src)
    return queued, overflow


@njit(cache=True, nogil=True)
def layer_distances(pid, dist, inf, trans, plain_start, plain_src, spec_src, spec_dst, spec_sig, spec_cost,
                    spec_start, spec_index, marks):
    """Moves to the finish of every state of progress ``pid``, written into ``dist[pid]``.

    Progress only ever grows on these tracks, so every other progress a move can lead to
    has its row of ``dist`` done already. First the special moves give their sources a
    value (:func:`_seed_values`): a finishing move 1, a move into another progress its cost
    plus the distance there. Then the values spread backwards through the moves that keep the
    progress (plain moves, by the grouped ``plain_src``; special moves whose transition
    is ``pid`` itself, grouped by destination in ``spec_start/spec_index``), cheapest
    first (:func:`_spread`). The states waiting at each distance (modulo ``marks.shape[0]``,
    more than the dearest move costs) are bits in ``marks`` ([queues, words] of uint64, zero on
    entry and on return), worked through in state order so that the grouped moves are read front to back.

    ``inf`` is the value meaning "cannot finish" (the largest ``dist`` holds: 255 for
    uint8, 32767 for int16). Returns True when some distance would not fit below it (the
    caller then starts again with a wider type).
    """
    row = dist[pid]
    n_queues = marks.shape[0]
    for u in range(row.shape[0]):
        row[u] = inf
    overflow = _seed_values(pid, row, inf, dist, trans, spec_src, spec_dst, spec_sig, spec_cost)
    seeds = _seeds_in_order(row, inf)
    n_seed = seeds.shape[0]
    if n_seed == 0:
        return overflow
    words = marks.shape[1]
    lo = np.full(n_queues, words, dtype=np.int64)  # the span of words that may hold marks, per queue
    hi = np.zeros(n_queues, dtype=np.int64)
    queued = 0  # marks set and not yet worked through
    sp = 0
    d = np.int64(row[seeds[0]])
    while True:
        if queued == 0:  # nothing waiting: on to the next seed not done yet
            while sp < n_seed and row[seeds[sp]] < d:
                sp += 1
            if sp == n_seed:
                break
            d = max(d, np.int64(row[seeds[sp]]))
        b = d % n_queues
        here = marks[b]
        while sp < n_seed and row[seeds[sp]] <= d:
            u = seeds[sp]
            sp += 1
            if row[u] == d:
                queued += _mark(marks, lo, hi, b, u)
        for w in range(lo[b], hi[b]):
            word = here[w]
            if word == 0:
                continue
            here[w] = np.uint64(0)
            while word:
                low = word & (~word + np.uint64(1))
                u = (w << 6) + _bit_index(low)
                word ^= low
                queued -= 1
                if row[u] == d:
                    added, over = _spread(pid, u, d, row, inf, trans, plain_start, plain_src, spec_src, spec_sig,
                                          spec_cost, spec_start, spec_index, marks, lo, hi)
                    queued += added
                    overflow = overflow or over
        lo[b], hi[b] = words, 0
        d += 1
    return overflow


#: Within one word of a checkpoint set (bit m: the checkpoints taken are the bits of m), the
#: sets that have checkpoint b (b < 6) among them: ``_HAVE[b]``.
_HAVE = np.array([sum(1 << m for m in range(64) if (m >> b) & 1) for b in range(6)], dtype=np.uint64)


@njit(cache=True, _nrt=False)
def _before(sets, out, bits, words):
    """``out``: the checkpoint sets ``c`` with ``c | bits`` in ``sets`` (both bit sets over
    checkpoint sets, ``words`` uint64 each): where a car stood before a move that takes the
    checkpoints ``bits``, given where it may stand after it."""
    for w in range(words):
        out[w] = sets[w]
    b = 0
    while bits >> b:
        if (bits >> b) & 1:
            if b < 6:
                shift = np.uint64(1 << b)
                have = _HAVE[b]
                for w in range(words):
                    kept = out[w] & have
                    out[w] = kept | (kept >> shift)
            else:
                step = 1 << (b - 6)
                for w in range(words):
                    if w & step:
                        out[w - step] = out[w]
        b += 1


@njit(cache=True, nogil=True)
def all_sets_level(d, lo, hi, dist, inf, words, in_start, in_src, in_sig, sig_bits, fin_sets, fin_src, fin_sig, sets,
                   frontier):
    """One distance of the search of every checkpoint set at once (any-order cell checkpoints).

    The layered table's fast path (:class:`~game.drivers.solver.LayeredTable`): a
    breadth-first search backwards from the finish over the states ``u`` where each
    state carries a bit set over the checkpoint sets (``words`` uint64; bit ``c``: the
    checkpoints ``c`` are taken). A move that takes the checkpoints ``bits`` leads from
    checkpoint set ``c`` to ``c | bits``, so the sets from which a move reaches a frontier
    come from the frontier's sets by :func:`_before`; every move costs one.

    ``dist[u, c]`` (filled with ``inf``, "cannot finish", beforehand) gets the distances.
    ``sets[u, 0]`` holds the sets reached so far, ``sets[u, 1 + d % 2]`` those at distance
    ``d`` (the frontier, also marked in ``frontier[d % 2]``, a bit a state, within words
    ``lo:hi``). ``in_start/in_src/in_sig`` list each state's incoming moves (source,
    signature); ``sig_bits[s]`` are the checkpoints signature ``s`` takes, ``fin_sets[s]``
    the sets from which it finishes, for the moves ``fin_src/fin_sig`` that can finish.

    Call with ``d`` 0 first (the finishing moves make the frontier of distance 1), then with
    ``d`` 1, 2, ... and the ``lo, hi`` returned until ``lo >= hi``. Returns ``(lo, hi,
    settled, overflow)``: the next frontier's words, the distances written by this call, and
    True when distance ``d`` does not fit below ``dist``'s largest value (nothing written).
    """
    after = np.zeros(words, dtype=np.uint64)
    here = np.zeros(words, dtype=np.uint64)
    nb = (d + 1) & 1
    nxt = frontier[nb]
    nlo, nhi = nxt.shape[0], 0
    settled = 0
    if d == 0:
        for e in range(fin_src.shape[0]):
            src = fin_src[e]
            fresh = False
            for w in range(words):
                new = fin_sets[fin_sig[e], w] & ~sets[src, 0, w]
                if new:
                    fresh = True
                    sets[src, 0, w] |= new
                    sets[src, 2, w] |= new
            if fresh:
                sw = src >> 6
                nxt[sw] |= np.uint64(1) << np.uint64(src & 63)
                nlo, nhi = min(nlo, sw), max(nhi, sw + 1)
        return nlo, nhi, settled, False
    if d >= inf:
        return lo, hi, settled, True
    cur = frontier[d & 1]
    c, nc = 1 + (d & 1), 1 + nb
    for w0 in range(lo, hi):
        word = cur[w0]
        if word == 0:
            continue
        cur[w0] = np.uint64(0)
        while word:
            low = word & (~word + np.uint64(1))
            u = (w0 << 6) + _bit_index(low)
            word ^= low
            for w in range(words):  # the sets at distance d: written, and spread to the sources
                x = sets[u, c, w]
                here[w] = x
                sets[u, c, w] = np.uint64(0)
                base = w << 6
                while x:
                    one = x & (~x + np.uint64(1))
                    dist[u, base + _bit_index(one)] = d
                    x ^= one
                    settled += 1
            for k in range(in_start[u], in_start[u + 1]):
                src = in_src[k]
                sg = in_sig[k]
                if sg == 0:
                    for w in range(words):
                        after[w] = here[w]
                else:
                    _before(here, after, sig_bits[sg], words)
                fresh = False
                for w in range(words):
                    new = after[w] & ~sets[src, 0, w]
                    if new:
                        fresh = True
                        sets[src, 0, w] |= new
                        sets[src, nc, w] |= new
                if fresh:
                    sw = src >> 6
                    nxt[sw] |= np.uint64(1) << np.uint64(src & 63)
                    nlo, nhi = min(nlo, sw), max(nhi, sw + 1)
    return nlo, nhi, settled, False


@njit(cache=True, inline="always")
def _bit_index(low):
    """The index of the one bit set in ``low`` (a power of two below 2**64)."""
    i = 0
    if low >> np.uint64(32):
        low >>= np.uint64(32)
        i += 32
    if low >> np.uint64(16):
        low >>= np.uint64(16)
        i += 16
    if low >> np.uint64(8):
        low >>= np.uint64(8)
        i += 8
    if low >> np.uint64(4):
        low >>= np.uint64(4)
        i += 4
    if low >> np.uint64(2):
        low >>= np.uint64(2)
        i += 2
    if low >> np.uint64(1):
        i += 1
    return i
