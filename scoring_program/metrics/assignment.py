"""Linear sum assignment in numpy, choosing exactly what scipy.optimize.linear_sum_assignment chooses.

scipy (>= 1.4, `rectangular_lsap.cpp`) solves the problem with Crouse's shortest augmenting path algorithm
("On implementing 2D rectangular assignment algorithms", 2016). When several assignments are optimal, which one
it returns depends on the algorithm's order of work, so we reproduce that order operation by operation:

- rows are added one at a time (curRow = 0, 1, ...); each grows a shortest path tree over the columns;
- the columns still to visit sit in `remaining`, first filled in REVERSE order (n-1, ..., 0) and shrunk by
  "move the last one into the hole" after each visit;
- reduced costs are `minVal + cost[i, j] - u[i] - v[j]`, evaluated left to right in float64;
- the next column is the one with the lowest tentative cost, scanning `remaining` in order; a later column with
  an EQUAL cost replaces the choice only if it is still unassigned (it then ends the path);
- duals: u[curRow] += minVal; u[i] += minVal - d[col4row[i]] for the other rows visited;
  v[j] -= minVal - d[j] for the columns visited; then the path is flipped back to curRow.

The same float64 operations in the same order give the same bits, so ties (duplicate values, the 0.0 padding
rows of Kinetics-TPS, -1.0 for disjoint boxes) resolve as scipy resolves them. The work is batched: many small
matrices of one shape are solved together, every step a numpy operation over the batch; the only Python loops
are over rows and path steps (at most n each), never over matrices.
"""
from __future__ import annotations

import numpy as np


def _augment_batch(cost):
    """cost: (F, nr, nc) float64 with nr <= nc, to minimize. Returns col4row (F, nr) int64 (scipy's choice)."""
    F, nr, nc = cost.shape
    u = np.zeros((F, nr))
    v = np.zeros((F, nc))
    col4row = np.full((F, nr), -1, dtype=np.int64)
    row4col = np.full((F, nc), -1, dtype=np.int64)
    path = np.full((F, nc), -1, dtype=np.int64)
    if F == 0 or nr == 0:
        return col4row
    cols = np.arange(nc)
    rows = np.arange(nr)
    with np.errstate(invalid="ignore"):
        for cur in range(nr):
            min_val = np.zeros(F)
            remaining = np.broadcast_to(cols[::-1], (F, nc)).copy()
            sr = np.zeros((F, nr), dtype=bool)
            sc = np.zeros((F, nc), dtype=bool)
            spc = np.full((F, nc), np.inf)
            i = np.full(F, cur, dtype=np.int64)
            sink = np.full(F, -1, dtype=np.int64)
            act = np.arange(F)              # matrices still looking for a sink; all share num_remaining
            num_rem = nc
            while act.size:
                ia = i[act]
                sr[act, ia] = True
                rem = remaining[act, :num_rem]                        # (a, k) column numbers, scan order
                a2 = act[:, None]
                r = ((min_val[act, None] + cost[a2, ia[:, None], rem]) - u[act, ia][:, None]) - v[a2, rem]
                old = spc[a2, rem]
                better = r < old
                new = np.where(better, r, old)
                spc[a2, rem] = new
                path[a2, rem] = np.where(better, ia[:, None], path[a2, rem])
                low = new.min(axis=1)
                eq = new == low[:, None]
                first = np.argmax(eq, axis=1)                          # strictly-lower scan stops here
                free = row4col[a2, rem] == -1
                pos = np.arange(num_rem)
                cand = eq & (free | (pos[None, :] == first[:, None])) & (pos[None, :] >= first[:, None])
                index = num_rem - 1 - np.argmax(cand[:, ::-1], axis=1)  # last free tie, else the first minimum
                j = rem[np.arange(act.size), index]
                min_val[act] = low
                owner = row4col[act, j]
                done = owner == -1
                sink[act[done]] = j[done]
                i[act[~done]] = owner[~done]
                sc[act, j] = True
                remaining[act, index] = remaining[act, num_rem - 1]
                num_rem -= 1
                act = act[~done]
            # dual update
            u[:, cur] += min_val
            other = sr & (rows[None, :] != cur)
            d_row = min_val[:, None] - np.take_along_axis(spc, np.maximum(col4row, 0), axis=1)
            u = np.where(other, u + d_row, u)
            v = np.where(sc, v - (min_val[:, None] - spc), v)
            # augment along the path back to cur
            j = sink.copy()
            act = np.arange(F)
            while act.size:
                ja = j[act]
                ia = path[act, ja]
                row4col[act, ja] = ia
                prev = col4row[act, ia]
                col4row[act, ia] = ja
                j[act] = prev
                act = act[ia != cur]
    return col4row


def _check(cost):
    if np.isnan(cost).any() or np.isneginf(cost).any():
        raise ValueError("the cost matrix contains NaN or -inf")


def linear_sum_assignment_batch(costs, maximize=False):
    """Solve F square (or wide, nr <= nc) problems at once: costs (F, nr, nc) -> col4row (F, nr).

    Row r of matrix f is assigned column col4row[f, r]; identical to
    scipy.optimize.linear_sum_assignment(costs[f], maximize)[1] for each f.
    """
    c = np.array(costs, dtype=np.float64)
    if c.ndim != 3 or c.shape[1] > c.shape[2]:
        raise ValueError("expected costs of shape (F, nr, nc) with nr <= nc")
    if maximize:
        c = -c
    _check(c)
    return _augment_batch(c)


def linear_sum_assignment(cost, maximize=False):
    """(row_ind, col_ind) exactly as scipy.optimize.linear_sum_assignment(cost, maximize) returns them."""
    c = np.array(cost, dtype=np.float64)
    if c.ndim != 2:
        raise ValueError("expected a matrix")
    nr, nc = c.shape
    if nr == 0 or nc == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    transpose = nc < nr
    if transpose:
        c = c.T
    if maximize:
        c = -c
    _check(c)
    col4row = _augment_batch(c[None])[0]
    if transpose:
        order = np.argsort(col4row, kind="stable")
        return col4row[order], order.astype(np.int64)
    return np.arange(c.shape[0], dtype=np.int64), col4row
