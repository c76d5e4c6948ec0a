"""The search kernel: fail-soft alpha-beta over single cards, without recursion.

``search`` returns the points the maximizing team gains from here on with best
play by both sides (a pair declared during the search counts as the change it
brings to the team's margin over its target), exactly when the result lies
strictly inside the window ``(alpha, beta)`` and as a bound on the same side of it
otherwise. The caller mostly asks with null windows (``beta = alpha + 1``): "can
the team gain at least ``beta``?".

It is written as one function without recursion and without calls to other
Python functions, working only on integers and on flat integer arrays, because
that is the shape numba compiles and caches on disk (numba's cache does not work
for recursive functions), and because the very same source must also run as
plain Python, on lists, where numba or numpy is missing (e.g. in the browser).
``search_compiled`` is the numba version when numba is importable, else ``None``.

Cards are ``suit * 8 + strength`` as in ``twentynine.game.cards``; a move is a card
plus ``REVEAL_FLAG`` when playing it reveals trumps (an automatic reveal, or the
request under ``reveal: ask``).

Main ideas (see ``docs/solver.md``):

- the search walks plies (single cards) with an explicit stack of per-ply state;
- at trick boundaries a transposition table stores bounds on the points still to
  come, keyed by the cards left, the leader and the flags that change the future
  (so one entry serves every window and every call on the same deal);
- cards of one hand that are adjacent among the cards still in play, in the same
  suit and worth the same points, are interchangeable: only one is tried;
- a node is decided at once when the window is out of reach: the points left,
  minus those the other side is sure of (its top trumps, a trick it has already
  won but not yet finished), bound what a team can still gain, and the last
  trick is played out without search;
- moves are tried in an order that finds cut-offs early.
"""

from __future__ import annotations

import os
from typing import Any

from twentynine.game.cards import NUM_CARDS, RANK_POINTS, SUITS

# A move's card is in the low bits; this flag marks a move that reveals trumps.
REVEAL_FLAG = 32
CARD_BITS = 31
SUIT_SHIFT = 3
STRENGTH_BITS = 7
BITS_PER_SUIT = 8
SUIT_BITS = (1 << BITS_PER_SUIT) - 1
NUM_SUITS = len(SUITS)
SEAT_BITS = 3
LAST_SEAT_OF_TRICK = 3
CARDS_PER_TRICK = 4

# Stack sizes: a root may sit after up to 3 table cards, then 32 cards are played.
MAX_PLY = 40
MAX_MOVES = 20

# Game variants for hidden trumps under ``unrevealed: cancel``: whether a deal
# that ends with trumps never revealed counts as a failure or a success.
GAME_PLAIN = 0
GAME_CANCEL_FAILS = 1
GAME_CANCEL_SUCCEEDS = 2

# Transposition table: keys hold the card mask (bits 0..31), leader (32..33),
# revealed (34), pair live (35), cancel-succeeds game (36), generation from bit 40.
KEY_LEADER_SHIFT = 32
KEY_REVEALED_SHIFT = 34
KEY_PAIR_SHIFT = 35
KEY_GAME_SHIFT = 36
KEY_GEN_SHIFT = 40
MAX_GENERATION = (1 << 22) - 1
TT_WAYS = 4
# Each slot is four consecutive integers (one cache line holds two slots): the key,
# a lower and an upper bound on the points to come, and the move that decided it.
TT_SHIFT = 2
TT_LOW = 1
TT_HIGH = 2
TT_MOVE = 3
# Values of a deal that ends cancelled in the two cancel games; table bounds beyond.
VALUE_INF = 1000
BOUND_INF = 10000
EMPTY_KEY = -1

# 32-bit de Bruijn sequence: index of the lowest set bit without int.bit_length,
# which numba lacks.
DEBRUIJN_MUL = 0x077CB531
DEBRUIJN_SHIFT = 27
LOW32 = 0xFFFFFFFF
DEBRUIJN_TABLE = tuple(
    i
    for _, i in sorted(
        ((((1 << i) * DEBRUIJN_MUL) & LOW32) >> DEBRUIJN_SHIFT, i) for i in range(NUM_CARDS)
    )
)

# For an 8-bit pattern of one suit: its card points, and the cards strictly above its
# highest card (all eight when it is empty).
SUIT_PATTERN_POINTS = tuple(
    sum(RANK_POINTS[r] for r in range(BITS_PER_SUIT) if pattern >> r & 1)
    for pattern in range(1 << BITS_PER_SUIT)
)
ABOVE_HIGHEST = tuple(
    SUIT_BITS & ~((1 << pattern.bit_length()) - 1) for pattern in range(1 << BITS_PER_SUIT)
)

# Hash mixing constants for table slots (kept small enough never to overflow int64).
HASH_LOW_BITS = 24
HASH_LOW_MASK = (1 << HASH_LOW_BITS) - 1
HASH_MUL_LOW = 0x9E3779
HASH_MUL_HIGH = 0x85EBCA6B
HASH_FOLD = 21

# Parameter vector layout (``prm``).
P_TRUMP = 0  # trump suit, -1 for none
P_ASK = 1  # 1 under reveal "ask", 0 under "auto"
P_REVEALED = 2  # trumps active at the root
P_GAME = 3  # GAME_* above
P_LAST = 4  # points for the last trick (0 when the option is off)
P_STEP = 5  # seat step: 1 clockwise, 3 anticlockwise
P_TEAM = 6  # the maximizing team
P_LEADER = 7  # leader of the trick at the root
P_NTABLE = 8  # cards already on the table at the root
P_HOLDER = 9  # seat that can declare the pair, -1 if none
P_PAIR_DELTA = 10  # change of the team's margin when the pair is declared
P_ALPHA = 11  # search window: values <= alpha only need an upper bound
P_FORCED = 12  # move to play at the root, -1 to try all
P_ASKED = 13  # the seat to move at the root has asked for the reveal
P_GEN = 14  # transposition table generation of this deal
P_TODO = 15  # points still to be won (hands, table, pending last-trick point)
P_KQ = 16  # mask of the trump King and Queen
P_WCARD = 17  # card winning the trick at the root (-1 on an empty table)
P_WSEAT = 18  # its seat
P_LIST_ONLY = 19  # 1: only list the root's moves (into moves[root * MAX_MOVES:]) and stop
P_BETA = 20  # search window: values >= beta only need a lower bound
P_LIMIT = 21  # stop after this many nodes (0: no limit), returning OUT_OF_NODES
NPARAM = 22

# What a search stopped by ``prm[P_LIMIT]`` returns: below every value and bound.
OUT_OF_NODES = -1_000_000

# Move-ordering scores (higher first). Leads: cards that are the top of their suit
# first, richest first; then low cards. Follows: win cheaply against opponents, pile
# points on a partner's trick, otherwise throw the cheapest card.
SCORE_HINT = 1000  # the move that decided this node in an earlier search
SCORE_LEAD_MASTER = 300
SCORE_LEAD_PARTNER = 200
SCORE_LEAD_OTHER = 100
SCORE_RUFFED = 250
SCORE_TRUMP_KEPT = 200
SCORE_WIN = 250
SCORE_SMEAR = 400
SCORE_OVERTAKE = 150
SCORE_DUCK = 100
POINT_WEIGHT = 8
# Second hand unable to win, partner able to beat the lead: points become welcome.
PARTNER_COLLECTS = 2

STATE_ARRAYS = (
    "seat",
    "pos",
    "rev",
    "plive",
    "acc",
    "todo",
    "wcard",
    "wseat",
    "card",
    "nmv",
    "idx",
    "val",
    "alpha",
    "beta",
    "alpha0",
    "beta0",
    "key",
    "hint",
    "best",
)


def search(
    hands: Any,
    prm: Any,
    table: Any,
    pts: Any,
    suit_pts: Any,
    above_top: Any,
    debruijn: Any,
    tt: Any,
    st_seat: Any,
    st_pos: Any,
    st_rev: Any,
    st_plive: Any,
    st_acc: Any,
    st_todo: Any,
    st_wcard: Any,
    st_wseat: Any,
    st_card: Any,
    st_nmv: Any,
    st_idx: Any,
    st_val: Any,
    st_alpha: Any,
    st_beta: Any,
    st_alpha0: Any,
    st_beta0: Any,
    st_key: Any,
    st_hint: Any,
    st_best: Any,
    moves: Any,
    scores: Any,
    stats: Any,
) -> int:
    """Points the maximizing team gains with best play, within ``prm[P_ALPHA..P_BETA]``.

    In the cancel games a deal that ends unrevealed is worth ``-VALUE_INF``
    (``GAME_CANCEL_FAILS``) or ``+VALUE_INF`` (``GAME_CANCEL_SUCCEEDS``). With
    ``prm[P_LIST_ONLY]`` set, return the number of root moves instead, listed in
    ``moves[root * MAX_MOVES:]`` in the order the search would try them. With
    ``prm[P_LIMIT]`` above 0 the search stops when it enters a node past that many
    and returns ``OUT_OF_NODES`` (what it stored in the table so far holds).

    ``hands`` (4 masks) is modified during the search and restored on return. The
    ``st_*`` arrays (``MAX_PLY`` long) are the explicit stack, ``moves``/``scores``
    (``MAX_PLY * MAX_MOVES``) the move lists; ``tt`` is the transposition table
    (a power of two of slots of ``1 << TT_SHIFT`` integers); ``stats[0]`` counts nodes.
    """
    trump = prm[P_TRUMP]
    ask_mode = prm[P_ASK]
    game = prm[P_GAME]
    last_pts = prm[P_LAST]
    step = prm[P_STEP]
    team = prm[P_TEAM]
    leader = prm[P_LEADER]
    root = prm[P_NTABLE]
    holder = prm[P_HOLDER]
    delta = prm[P_PAIR_DELTA]
    forced = prm[P_FORCED]
    asked = prm[P_ASKED]
    gen_bits = prm[P_GEN] << KEY_GEN_SHIFT
    kq = prm[P_KQ]
    list_only = prm[P_LIST_ONLY]
    limit = prm[P_LIMIT]
    tmask = (len(tt) >> TT_SHIFT) - 1
    trump_mask = 0
    if trump >= 0:
        trump_mask = SUIT_BITS << (BITS_PER_SUIT * trump)

    # The cards already on the table sit in the plies before the root.
    for i in range(root):
        st_card[i] = table[i]
        st_seat[i] = (leader + i * step) & SEAT_BITS
    d = root
    st_seat[d] = (leader + root * step) & SEAT_BITS
    st_pos[d] = root
    st_rev[d] = prm[P_REVEALED]
    st_plive[d] = 1 if holder >= 0 else 0
    st_acc[d] = 0
    st_todo[d] = prm[P_TODO]
    st_wcard[d] = prm[P_WCARD]
    st_wseat[d] = prm[P_WSEAT]
    st_alpha[d] = prm[P_ALPHA]
    st_beta[d] = prm[P_BETA]

    nodes = 0
    phase = 0  # 0: enter node d; 1: continue node d (after child result ret); 2: node d done
    ret = 0
    fresh = 1  # in phase 1: no child has returned yet
    while True:
        if phase == 0:
            # ---- enter node d: decide it at once if possible, else list its moves.
            nodes += 1
            if limit > 0 and nodes > limit:
                # Out of nodes: put the cards played below the root back and stop.
                for i in range(root, d):
                    hands[st_seat[i]] |= 1 << st_card[i]
                stats[0] += nodes
                return OUT_OF_NODES
            s = st_seat[d]
            p = st_pos[d]
            rem = hands[0] | hands[1] | hands[2] | hands[3]
            st_key[d] = -1
            st_hint[d] = -1
            st_best[d] = -1
            acc = st_acc[d]
            if rem == 0:
                ret = acc
                if game != GAME_PLAIN and st_rev[d] == 0:
                    ret = VALUE_INF if game == GAME_CANCEL_SUCCEEDS else -VALUE_INF
                phase = 2
                continue
            alpha = st_alpha[d]
            beta = st_beta[d]
            pl = 0
            if st_plive[d] != 0 and (hands[holder] & kq) == kq:
                pl = 1
            lo = 0
            hi = st_todo[d]
            if trump >= 0:
                # Trumps above all of the other team's are sure points: they take
                # their trick whenever they are played (a seat void under "ask" may
                # ask so that they count).
                # Trumps on the table count against the cards still to come.
                sh = BITS_PER_SUIT * trump
                tx = ((hands[team] | hands[team + 2]) >> sh) & SUIT_BITS
                ty = ((hands[1 - team] | hands[3 - team]) >> sh) & SUIT_BITS
                topx = tx
                topy = ty
                for i in range(d - p, d):
                    x = st_card[i]
                    if (x >> SUIT_SHIFT) == trump:
                        if (st_seat[i] & 1) == team:
                            topx |= 1 << (x & STRENGTH_BITS)
                        else:
                            topy |= 1 << (x & STRENGTH_BITS)
                lo = suit_pts[tx & above_top[topy]]
                hi -= suit_pts[ty & above_top[topx]]
            if p != 0:
                # A trick whose winner nobody of the other team still to play can beat
                # gives its table points to the winner's team. While trumps are hidden
                # this holds only without trumps discarded on the table, which a
                # later reveal would bring to life.
                wc = st_wcard[d]
                wt = st_wseat[d] & 1
                led = st_card[d - p] >> SUIT_SHIFT
                held = 1
                if st_rev[d] == 0 and trump >= 0 and led != trump:
                    for i in range(d - p, d):
                        if (st_card[i] >> SUIT_SHIFT) == trump:
                            held = 0
                for k in range(CARDS_PER_TRICK - p):
                    o = (s + k * step) & SEAT_BITS
                    if (o & 1) != wt:
                        ho = hands[o]
                        fol = ho & (SUIT_BITS << (BITS_PER_SUIT * led))
                        if fol != 0:
                            if (wc >> SUIT_SHIFT) == led and (fol & ~((2 << wc) - 1)) != 0:
                                held = 0
                        elif (ho & trump_mask) != 0 and (
                            (wc >> SUIT_SHIFT) != trump or (ho & trump_mask & ~((2 << wc) - 1)) != 0
                        ):
                            held = 0
                if held != 0:
                    on_table = 0
                    for i in range(d - p, d):
                        on_table += pts[st_card[i]]
                    if wt == team:
                        lo += on_table
                    else:
                        hi -= on_table
            if pl != 0:
                if delta > 0:
                    hi += delta
                else:
                    lo += delta
            # Fail-soft: a value returned outside the window is a bound on the truth.
            decided = 0
            if list_only != 0 or (d == root and forced >= 0):
                pass  # bounds hold for free play, not for a forced first move
            elif st_rev[d] != 0 or game == GAME_PLAIN:
                if acc + lo >= beta:
                    decided = 1
                    ret = acc + lo
                elif acc + hi <= alpha:
                    decided = 1
                    ret = acc + hi
            elif game == GAME_CANCEL_FAILS:
                if acc + hi <= alpha:
                    decided = 1
                    ret = acc + hi
            elif acc + lo >= beta:
                decided = 1
                ret = acc + lo
            if (
                decided == 0
                and p == 0
                and (hands[s] & (hands[s] - 1)) == 0
                and (st_rev[d] != 0 or trump < 0 or ask_mode == 0)
                and list_only == 0
                and not (d == root and forced >= 0)
            ):
                # The last trick leaves nobody a choice (bar an "ask" while hidden):
                # play it out here.
                h1 = hands[s]
                wc = debruijn[((h1 * DEBRUIJN_MUL) & LOW32) >> DEBRUIJN_SHIFT]
                ws = s
                rv = st_rev[d]
                gained = pts[wc] + last_pts
                for k in range(1, CARDS_PER_TRICK):
                    o = (s + k * step) & SEAT_BITS
                    c = debruijn[((hands[o] * DEBRUIJN_MUL) & LOW32) >> DEBRUIJN_SHIFT]
                    gained += pts[c]
                    if (c >> SUIT_SHIFT) == (wc >> SUIT_SHIFT):
                        if c > wc:
                            wc = c
                            ws = o
                    else:
                        if trump >= 0:
                            rv = 1  # a void seat under "auto" reveals
                        if rv != 0 and (c >> SUIT_SHIFT) == trump:
                            wc = c
                            ws = o
                ret = acc
                if (ws & 1) == team:
                    ret += gained
                if game != GAME_PLAIN and rv == 0:
                    ret = VALUE_INF if game == GAME_CANCEL_SUCCEEDS else -VALUE_INF
                decided = 1
            if decided == 0 and p == 0 and list_only == 0 and not (d == root and forced >= 0):
                g1 = 1 if (game == GAME_CANCEL_SUCCEEDS and st_rev[d] == 0) else 0
                key = (
                    rem
                    | (s << KEY_LEADER_SHIFT)
                    | (st_rev[d] << KEY_REVEALED_SHIFT)
                    | (pl << KEY_PAIR_SHIFT)
                    | (g1 << KEY_GAME_SHIFT)
                )
                hsh = (key & HASH_LOW_MASK) * HASH_MUL_LOW
                hsh ^= (key >> HASH_LOW_BITS) * HASH_MUL_HIGH
                hsh ^= hsh >> HASH_FOLD
                full = key | gen_bits
                for w in range(TT_WAYS):
                    j = (hsh + w) & tmask
                    jj = j << TT_SHIFT
                    if tt[jj] == full:
                        low_bound = acc + tt[jj + TT_LOW]
                        high_bound = acc + tt[jj + TT_HIGH]
                        if low_bound >= beta or low_bound == high_bound:
                            decided = 1
                            ret = low_bound
                        elif high_bound <= alpha:
                            decided = 1
                            ret = high_bound
                        else:
                            # Narrow the window to what is still unknown.
                            if low_bound > alpha:
                                alpha = low_bound
                            if high_bound < beta:
                                beta = high_bound
                            st_hint[d] = tt[jj + TT_MOVE]
                        break
                st_key[d] = key
            if decided != 0:
                st_key[d] = -1
                phase = 2
                continue
            st_alpha[d] = alpha
            st_beta[d] = beta
            st_alpha0[d] = alpha
            st_beta0[d] = beta

            # ---- move generation.
            base = d * MAX_MOVES
            n = 0
            if d == root and forced >= 0:
                moves[base] = forced
                n = 1
            else:
                h = hands[s]
                inplay = rem
                for i in range(d - p, d):
                    inplay |= 1 << st_card[i]
                cand_a = 0
                flag_a = 0
                cand_b = 0
                flag_b = 0
                need_ask = 0
                wc2 = -1
                ws2 = -1
                ruffable = 0
                partner_ruffs = 0
                partner_over = 0
                nxt_follow = 0
                nxt_trumps = 0
                if p == 0:
                    cand_a = h
                    if trump >= 0:
                        # Suits where an opponent can trump the lead.
                        for o in range(s + 1, s + 4, 2):
                            ho = hands[o & SEAT_BITS]
                            if (ho & trump_mask) != 0:
                                for su in range(NUM_SUITS):
                                    void = ((ho >> (BITS_PER_SUIT * su)) & SUIT_BITS) == 0
                                    if su != trump and void:
                                        ruffable |= 1 << su
                        hp = hands[(s + 2) & SEAT_BITS]
                        if (hp & trump_mask) != 0:
                            for su in range(NUM_SUITS):
                                void = ((hp >> (BITS_PER_SUIT * su)) & SUIT_BITS) == 0
                                if su != trump and void:
                                    partner_ruffs |= 1 << su
                else:
                    led = st_card[d - p] >> SUIT_SHIFT
                    follow = h & (SUIT_BITS << (BITS_PER_SUIT * led))
                    if p < LAST_SEAT_OF_TRICK:
                        hn = hands[(s + step) & SEAT_BITS]
                        nxt_follow = hn & (SUIT_BITS << (BITS_PER_SUIT * led))
                        nxt_trumps = hn & trump_mask
                    if p == 1:
                        # Second hand: can the partner, playing last, beat the lead?
                        wc = st_wcard[d]
                        hp = hands[(s + 2) & SEAT_BITS]
                        pf = hp & (SUIT_BITS << (BITS_PER_SUIT * led))
                        if pf != 0:
                            if (pf & ~((2 << wc) - 1)) != 0:
                                partner_over = 1
                        elif (hp & trump_mask) != 0 and (wc >> SUIT_SHIFT) != trump:
                            partner_over = 1
                    if d == root and asked != 0:
                        need_ask = 1
                    elif follow != 0:
                        cand_a = follow
                    elif st_rev[d] != 0 or trump < 0:
                        cand_a = h
                    elif ask_mode == 0:
                        cand_a = h
                        flag_a = REVEAL_FLAG
                    else:
                        cand_a = h
                        need_ask = 1
                        flag_b = REVEAL_FLAG
                    if need_ask != 0 or flag_a != 0:
                        # The table as it stands with trumps active.
                        b = d - p
                        wc2 = st_card[b]
                        ws2 = st_seat[b]
                        for i in range(b + 1, d):
                            x = st_card[i]
                            if (x >> SUIT_SHIFT) == (wc2 >> SUIT_SHIFT):
                                if x > wc2:
                                    wc2 = x
                                    ws2 = st_seat[i]
                            elif (x >> SUIT_SHIFT) == trump:
                                wc2 = x
                                ws2 = st_seat[i]
                    if need_ask != 0:
                        trumps = h & trump_mask
                        if trumps == 0:
                            cand_b = h
                        elif (wc2 >> SUIT_SHIFT) != trump or (ws2 & 1) == (s & 1):
                            cand_b = trumps  # nothing to overtake, or the partner wins
                        else:
                            higher = trumps & ~((2 << wc2) - 1)
                            cand_b = higher if higher != 0 else trumps
                for k in range(2):
                    cand = cand_a
                    fl = flag_a
                    if k == 1:
                        cand = cand_b
                        fl = flag_b
                    while cand != 0:
                        low = cand & -cand
                        cand ^= low
                        c = debruijn[((low * DEBRUIJN_MUL) & LOW32) >> DEBRUIJN_SHIFT]
                        suit = c >> SUIT_SHIFT
                        above = inplay & (SUIT_BITS << (BITS_PER_SUIT * suit)) & ~((low << 1) - 1)
                        if above != 0:
                            nb = above & -above
                            if (h & nb) != 0 and not (pl != 0 and ((low | nb) & kq) != 0):
                                cn = debruijn[((nb * DEBRUIJN_MUL) & LOW32) >> DEBRUIJN_SHIFT]
                                if pts[c] == pts[cn]:
                                    continue  # the next card up is equivalent: try that one
                        # Ordering score.
                        rank = c & STRENGTH_BITS
                        worth = POINT_WEIGHT * pts[c]
                        if p == 0:
                            if above == 0:
                                sc = SCORE_LEAD_MASTER + worth + rank
                            else:
                                sh = BITS_PER_SUIT * suit
                                top = (((SUIT_BITS & ~above_top[above >> sh]) + 1) >> 1) << sh
                                if (hands[(s + 2) & SEAT_BITS] & top) != 0 or (
                                    (partner_ruffs >> suit) & 1
                                ) != 0:
                                    sc = SCORE_LEAD_PARTNER - worth - rank
                                else:
                                    sc = SCORE_LEAD_OTHER - worth - rank
                            if ((ruffable >> suit) & 1) != 0:
                                sc -= SCORE_RUFFED
                        else:
                            best = st_wcard[d]
                            ws = st_wseat[d]
                            active = st_rev[d]
                            if fl != 0 and st_rev[d] == 0:
                                best = wc2
                                ws = ws2
                                active = 1
                            wins = 0
                            if (c >> SUIT_SHIFT) == (best >> SUIT_SHIFT):
                                if c > best:
                                    wins = 1
                            elif active != 0 and suit == trump:
                                wins = 1
                            # Can the next seat (an opponent, if still to play) beat the
                            # card that would win the trick?
                            x = c if wins != 0 else best
                            beaten = 0
                            if nxt_follow != 0:
                                if (x >> SUIT_SHIFT) == led and (nxt_follow & ~((2 << x) - 1)) != 0:
                                    beaten = 1
                            elif nxt_trumps != 0 and (
                                (x >> SUIT_SHIFT) != trump or (nxt_trumps & ~((2 << x) - 1)) != 0
                            ):
                                beaten = 1
                            if (ws & 1) == (s & 1) and wins == 0:
                                if beaten == 0:
                                    sc = SCORE_SMEAR + worth - rank
                                    if suit == trump:
                                        sc -= SCORE_TRUMP_KEPT
                                else:
                                    sc = SCORE_DUCK - worth - rank
                            elif wins != 0:
                                if beaten == 0:
                                    sc = SCORE_WIN - rank
                                else:
                                    sc = SCORE_OVERTAKE - worth - rank
                            else:
                                sc = SCORE_DUCK - worth - rank
                                if suit == trump:
                                    sc -= SCORE_TRUMP_KEPT
                                if partner_over != 0:
                                    sc += PARTNER_COLLECTS * worth  # the partner may take them
                        if (c | fl) == st_hint[d]:
                            sc = SCORE_HINT
                        j = n
                        while j > 0 and scores[base + j - 1] < sc:
                            moves[base + j] = moves[base + j - 1]
                            scores[base + j] = scores[base + j - 1]
                            j -= 1
                        moves[base + j] = c | fl
                        scores[base + j] = sc
                        n += 1
            st_nmv[d] = n
            if list_only != 0:
                return n
            st_idx[d] = 0
            st_val[d] = -BOUND_INF if (s & 1) == team else BOUND_INF
            fresh = 1
            phase = 1
            continue

        if phase == 1:
            # ---- continue node d: take the child's result, then try the next move.
            s = st_seat[d]
            cut = 0
            if fresh == 0:
                if (s & 1) == team:
                    if ret > st_val[d]:
                        st_val[d] = ret
                        st_best[d] = moves[d * MAX_MOVES + st_idx[d] - 1]
                        if ret > st_alpha[d]:
                            st_alpha[d] = ret
                        if ret >= st_beta[d]:
                            cut = 1
                elif ret < st_val[d]:
                    st_val[d] = ret
                    st_best[d] = moves[d * MAX_MOVES + st_idx[d] - 1]
                    if ret < st_beta[d]:
                        st_beta[d] = ret
                    if ret <= st_alpha[d]:
                        cut = 1
            fresh = 0
            if cut == 0 and st_idx[d] < st_nmv[d]:
                m = moves[d * MAX_MOVES + st_idx[d]]
                st_idx[d] += 1
                c = m & CARD_BITS
                p = st_pos[d]
                hands[s] ^= 1 << c
                st_card[d] = c
                rv = st_rev[d]
                if (m & REVEAL_FLAG) != 0:
                    rv = 1
                if p == 0:
                    wc = c
                    ws = s
                else:
                    wc = st_wcard[d]
                    ws = st_wseat[d]
                    if rv != 0 and st_rev[d] == 0:
                        # Revealed now: trumps already on the table become trumps.
                        b = d - p
                        wc = st_card[b]
                        ws = st_seat[b]
                        for i in range(b + 1, d):
                            x = st_card[i]
                            if (x >> SUIT_SHIFT) == (wc >> SUIT_SHIFT):
                                if x > wc:
                                    wc = x
                                    ws = st_seat[i]
                            elif (x >> SUIT_SHIFT) == trump:
                                wc = x
                                ws = st_seat[i]
                    if (c >> SUIT_SHIFT) == (wc >> SUIT_SHIFT):
                        if c > wc:
                            wc = c
                            ws = s
                    elif rv != 0 and (c >> SUIT_SHIFT) == trump:
                        wc = c
                        ws = s
                e = d + 1
                if p == LAST_SEAT_OF_TRICK:
                    b = d - LAST_SEAT_OF_TRICK
                    gained = pts[st_card[b]] + pts[st_card[b + 1]] + pts[st_card[b + 2]] + pts[c]
                    if (hands[0] | hands[1] | hands[2] | hands[3]) == 0:
                        gained += last_pts
                    acc = st_acc[d]
                    if (ws & 1) == team:
                        acc += gained
                    plv = st_plive[d]
                    if (
                        plv != 0
                        and rv != 0
                        and (ws & 1) == (holder & 1)
                        and (hands[holder] & kq) == kq
                    ):
                        acc += delta
                        plv = 0
                    st_seat[e] = ws
                    st_pos[e] = 0
                    st_rev[e] = rv
                    st_plive[e] = plv
                    st_acc[e] = acc
                    st_todo[e] = st_todo[d] - gained
                    st_wcard[e] = -1
                    st_wseat[e] = -1
                else:
                    st_seat[e] = (s + step) & SEAT_BITS
                    st_pos[e] = p + 1
                    st_rev[e] = rv
                    st_plive[e] = st_plive[d]
                    st_acc[e] = st_acc[d]
                    st_todo[e] = st_todo[d]
                    st_wcard[e] = wc
                    st_wseat[e] = ws
                st_alpha[e] = st_alpha[d]
                st_beta[e] = st_beta[d]
                d = e
                phase = 0
                continue
            ret = st_val[d]
            phase = 2

        # ---- phase 2: node d is done with result ret; store it, return to the parent.
        key = st_key[d]
        if key >= 0:
            rel = ret - st_acc[d]
            hsh = (key & HASH_LOW_MASK) * HASH_MUL_LOW
            hsh ^= (key >> HASH_LOW_BITS) * HASH_MUL_HIGH
            hsh ^= hsh >> HASH_FOLD
            full = key | gen_bits
            slot = -1
            for w in range(TT_WAYS):
                j = (hsh + w) & tmask
                if tt[j << TT_SHIFT] == full:
                    slot = j
                    break
            if slot < 0:
                for w in range(TT_WAYS):
                    j = (hsh + w) & tmask
                    if (tt[j << TT_SHIFT] >> KEY_GEN_SHIFT) != prm[P_GEN]:
                        slot = j
                        break
            if slot < 0:
                slot = hsh & tmask
            jj = slot << TT_SHIFT
            if tt[jj] != full:
                tt[jj] = full
                tt[jj + TT_LOW] = -BOUND_INF
                tt[jj + TT_HIGH] = BOUND_INF
                tt[jj + TT_MOVE] = -1
            if st_best[d] >= 0:
                tt[jj + TT_MOVE] = st_best[d]
            if ret <= st_alpha0[d]:
                if rel < tt[jj + TT_HIGH]:
                    tt[jj + TT_HIGH] = rel
            elif ret >= st_beta0[d]:
                if rel > tt[jj + TT_LOW]:
                    tt[jj + TT_LOW] = rel
            else:
                tt[jj + TT_LOW] = rel
                tt[jj + TT_HIGH] = rel
        if d == root:
            stats[0] += nodes
            return ret
        d -= 1
        hands[st_seat[d]] |= 1 << st_card[d]
        phase = 1


def _load_numba() -> Any:
    """The numba-compiled ``search``, or ``None`` if numba is missing or switched off."""
    if os.environ.get("TWENTYNINE_NO_NUMBA", "") not in ("", "0"):
        return None
    try:
        import numba
    except ImportError:
        return None
    return numba.njit(cache=True, nogil=True)(search)


search_compiled = _load_numba()
