/* The search loops of ismcts.py (`run`) and pubmcts.py (`pub_run`) in C: the same iterations, move for move and bit
   for bit, many times faster. The searches are what `hard`, `expert` and the coach spend their time on, and what an
   SSH host with many bot tables spends most of its CPU on. Optional: without a C compiler the package installs and
   plays the same moves in pure Python.

   Exactness is the contract (tests/test_search_golden.py, test_search_c.py, test_pubmcts.py): every rule here
   mirrors a line of the Python loops, the same random numbers drawn at the same moments (from the caller's
   random.Random, never a generator of our own), the same floating-point operations in the same order (built with
   -ffp-contract=off: no fused multiply-add). */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SEATS 16
#define MAX_CHIPS 64 /* chip counts index the limit tables up to this (55 chips in a game) */
#define MAX_CARDS 64
#define GIL_EVERY 16 /* iterations between two chances for other threads to take the interpreter lock (a power of 2) */

typedef struct {
    long visits[2];    /* of pass [0] and take [1], for the seat to move here */
    double sums[2];    /* their reward sums */
    int pass_child;    /* -1: none yet */
    int first_take;    /* first child after a take (one per card turned up next), -1: none */
    int next_sibling;  /* the next child of this node's parent after a take */
    int card;          /* for a child after a take: the card it was reached by */
} Node;

typedef struct { /* rollout.Tables */
    long early[MAX_SEATS][MAX_CHIPS];
    long late[MAX_SEATS][MAX_CHIPS];
    long milks[MAX_SEATS];
    long pot_weights[MAX_SEATS];
    long penalties[MAX_SEATS];
    long milk_qs[MAX_SEATS];
} Tables;

/* rollout.THRESHOLD's tables (pubmcts's playouts): every limit 0, a chip on the card worth a point (4 quarters). */
static const Tables THRESHOLD = {.pot_weights = {4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4}};

typedef struct {
    int node;
    int took;
    int mover;
} Step;

static void scores_of(int players, const uint64_t *masks, const long *chips, long *out) {
    for (int i = 0; i < players; i++) {
        uint64_t lows = masks[i] & ~(masks[i] << 1);
        long total = 0;
        while (lows) {
            total += __builtin_ctzll(lows);
            lows &= lows - 1;
        }
        out[i] = total - chips[i];
    }
}

/* Let the interpreter lock go every GIL_EVERY iterations, as Python code does every switch interval: the host's
   event loop (and other bots' threads) must not wait a whole search. A thread that has waited asks for the lock, and
   releasing it then hands it over; otherwise this costs two uncontended mutex operations. */
static void share_the_lock(long iteration) {
    if ((iteration & (GIL_EVERY - 1)) == GIL_EVERY - 1) {
        Py_BEGIN_ALLOW_THREADS
        Py_END_ALLOW_THREADS
    }
}

/* One float from the caller's random.Random, or -1.0 with a Python error set. */
static double draw(PyObject *rand) {
    PyObject *value = PyObject_CallNoArgs(rand);
    if (value == NULL) return -1.0;
    double x = PyFloat_AsDouble(value);
    Py_DECREF(value);
    if (x == -1.0 && PyErr_Occurred()) return -1.0;
    return x;
}

/* Both searches' rule at a node, from the visits and value sums of pass [0] and take [1]: an untried action first
   (at random between two), else the best bound: the highest mean + c * sqrt(ln(n + extra) / n_a), or with
   ``minimise`` the lowest mean - c * sqrt(...). 1: take, 0: pass, -1 on a Python error. */
static int select_take(const long *n, const double *sum, double c, long extra, int minimise, PyObject *rand) {
    if (n[0] == 0 || n[1] == 0) {
        if (n[0] != n[1]) return n[1] == 0;
        double x = draw(rand);
        return x < 0.0 ? -1 : x < 0.5;
    }
    double log_n = log((double)(n[1] + n[0] + extra));
    double take = sum[1] / (double)n[1], take_bound = c * sqrt(log_n / (double)n[1]);
    double pass = sum[0] / (double)n[0], pass_bound = c * sqrt(log_n / (double)n[0]);
    return minimise ? take - take_bound <= pass - pass_bound : take + take_bound >= pass + pass_bound;
}

/* One of pool[:*left] turned up uniformly and moved to pool[*left - 1], the pool one shorter; -1 on a Python error. */
static int turn_up(int *pool, int *left, PyObject *rand) {
    double x = draw(rand);
    if (x < 0.0) return -1;
    int j = (int)(x * (double)*left), card = pool[j];
    *left -= 1;
    pool[j] = pool[*left];
    pool[*left] = card;
    return card;
}

/* rollout.playout: every seat plays its model (the tables) through deck[index:end]; without tables (NULL),
   its coin: take or pass at even odds. Takes when out of chips. Returns -1 on a Python error. */
static int playout(const Tables *t, int players, int card, long pot, int seat, uint64_t *masks, long *chips,
                   const int *deck, int index, int end, PyObject *rand, long *scores) {
    uint64_t uni = 0;
    for (int i = 0; i < players; i++) uni |= masks[i];
    uint64_t near = ((uint64_t)1 << (card - 1)) | ((uint64_t)1 << (card + 1));
    long card4 = 4L * card;
    int late = end - index < 4;
    for (;;) {
        long mine = chips[seat];
        int take;
        if (mine <= 0) {
            take = 1;
        } else if (t == NULL) {
            double x = draw(rand);
            if (x < 0.0) return -1;
            take = x < 0.5;
        } else {
            uint64_t mask = masks[seat];
            if (mask & near) {
                if (!t->milks[seat] || mine < 2 || index == end) {
                    take = 1;
                } else {
                    take = ((uni ^ mask) & near) != 0 || pot + players >= ((card * t->milk_qs[seat]) >> 4);
                }
            } else {
                long m = mine < MAX_CHIPS ? mine : MAX_CHIPS - 1;
                long limit = late ? t->late[seat][m] : t->early[seat][m];
                if (uni & near) limit -= t->penalties[seat];
                take = card4 - t->pot_weights[seat] * pot <= limit;
            }
        }
        if (take) {
            chips[seat] = mine + pot;
            uint64_t bit = (uint64_t)1 << card;
            masks[seat] |= bit;
            uni |= bit;
            if (index == end) break;
            card = deck[index];
            index += 1;
            pot = 0;
            near = ((uint64_t)1 << (card - 1)) | ((uint64_t)1 << (card + 1));
            card4 = 4L * card;
            if (end - index < 4) late = 1;
        } else {
            chips[seat] = mine - 1;
            pot += 1;
            seat = seat + 1 == players ? 0 : seat + 1;
        }
    }
    scores_of(players, masks, chips, scores);
    return 0;
}

/* ismcts._rewards */
static void rewards_of(int players, const long *scores, double score_weight, double *out) {
    long best = LONG_MAX, runner_up = LONG_MAX; /* sorted(scores)[:2]: the runner-up is the best again if shared */
    int count = 0;
    for (int i = 0; i < players; i++) {
        if (scores[i] < best) {
            runner_up = best;
            best = scores[i];
        } else if (scores[i] < runner_up) {
            runner_up = scores[i];
        }
    }
    for (int i = 0; i < players; i++) count += scores[i] == best;
    double share = 1.0 / (double)count;
    for (int i = 0; i < players; i++) {
        long mine = scores[i];
        if (score_weight == 0.0) {
            out[i] = mine == best ? share : 0.0;
        } else if (mine == best) {
            out[i] = share + score_weight * (double)(runner_up - mine) / 100.0;
        } else {
            out[i] = score_weight * (double)(best - mine) / 100.0;
        }
    }
}

/* Refuses an argument: sets a Python error (``format`` as PyErr_Format's) and returns -1. */
static int refuse(PyObject *type, const char *format, ...) {
    va_list args;
    va_start(args, format);
    PyErr_FormatV(type, format, args);
    va_end(args);
    return -1;
}

static int long_list(PyObject *list, long *out, int count, const char *what) {
    if (!PyList_Check(list) || PyList_GET_SIZE(list) != count)
        return refuse(PyExc_ValueError, "%s: a list of %d ints", what, count);
    for (int i = 0; i < count; i++) {
        long value = PyLong_AsLong(PyList_GET_ITEM(list, i));
        if (value == -1 && PyErr_Occurred()) return -1;
        out[i] = value;
    }
    return 0;
}

static int read_tables(PyObject *tables, int players, Tables *t) {
    PyObject *early, *late, *milks, *pot_weights, *penalties, *milk_qs;
    if (!PyArg_ParseTuple(tables, "OOOOOO", &early, &late, &milks, &pot_weights, &penalties, &milk_qs)) return -1;
    for (int s = 0; s < players; s++) {
        for (int k = 0; k < 2; k++) {
            PyObject *rows = k ? late : early, *row = PyList_Check(rows) ? PyList_GetItem(rows, s) : NULL;
            Py_ssize_t n = row != NULL && PyList_Check(row) ? PyList_GET_SIZE(row) : 0;
            if (n < 1 || n > MAX_CHIPS)
                return refuse(PyExc_ValueError, "limit tables: one list of 1..64 chip counts per seat");
            long *out = k ? t->late[s] : t->early[s]; /* a count past the list's end reads its last entry */
            if (long_list(row, out, (int)n, "limit table") < 0) return -1;
            for (int c = (int)n; c < MAX_CHIPS; c++) out[c] = out[n - 1];
        }
    }
    if (long_list(milks, t->milks, players, "milks") < 0 ||
        long_list(pot_weights, t->pot_weights, players, "pot weights") < 0 ||
        long_list(penalties, t->penalties, players, "penalties") < 0)
        return -1;
    return long_list(milk_qs, t->milk_qs, players, "milk_qs");
}

typedef struct {
    int players, card, seat, deck_left, pool;
    long pot;
    uint64_t masks[MAX_SEATS];
    long chips[MAX_SEATS];
    int unseen[MAX_CARDS];
} Position;

/* The (masks, chips, card, pot, seat, unseen, deck_left) both searches start from, checked (at most ``seats``
   seats); -1 with a Python error set. */
static int read_position(PyObject *args, int seats, Position *p) {
    PyObject *masks, *chips, *unseen;
    if (!PyArg_ParseTuple(args, "OOiliOi", &masks, &chips, &p->card, &p->pot, &p->seat, &unseen, &p->deck_left))
        return -1;
    if (!PyList_Check(masks) || !PyList_Check(unseen)) return refuse(PyExc_TypeError, "masks and unseen: lists");
    p->players = (int)PyList_GET_SIZE(masks);
    if (p->players < 2 || p->players > seats || p->seat < 0 || p->seat >= p->players)
        return refuse(PyExc_ValueError, "2..%d seats, and the seat to move among them", seats);
    if (p->card < 1 || p->card > 60) return refuse(PyExc_ValueError, "card out of range");
    for (int i = 0; i < p->players; i++) {
        unsigned long long m = PyLong_AsUnsignedLongLong(PyList_GET_ITEM(masks, i));
        if (m == (unsigned long long)-1 && PyErr_Occurred()) return -1;
        p->masks[i] = m;
    }
    if (long_list(chips, p->chips, p->players, "chips") < 0) return -1;
    p->pool = (int)PyList_GET_SIZE(unseen);
    if (p->pool > MAX_CARDS || p->deck_left < 0 || p->deck_left > p->pool)
        return refuse(PyExc_ValueError, "deck_left must be 0..len(unseen) (at most %d)", MAX_CARDS);
    for (int i = 0; i < p->pool; i++) {
        long value = PyLong_AsLong(PyList_GET_ITEM(unseen, i));
        if (value == -1 && PyErr_Occurred()) return -1;
        if (value < 1 || value > 60) return refuse(PyExc_ValueError, "unseen card out of range");
        p->unseen[i] = (int)value;
    }
    return 0;
}

/* run((masks, chips, card, pot, seat, unseen, deck_left), iterations, exploration, score_weight, tables, rand, fill)
   -> (take visits, pass visits, take reward sum, pass reward sum, own score summed after passing, after taking).
   ``tables`` is rollout.Tables for light playouts, or None for random ones; ``fill`` is None when every chip count
   is known (``chips``), else a callable giving a fresh list of chip counts per iteration (knowledge.fill_chips). */
static PyObject *run(PyObject *self, PyObject *args) {
    PyObject *position, *tables_obj, *rand, *fill;
    long iterations;
    double c, score_weight;
    Position at;
    if (!PyArg_ParseTuple(args, "O!lddOOO", &PyTuple_Type, &position, &iterations, &c, &score_weight, &tables_obj,
                          &rand, &fill) ||
        read_position(position, MAX_SEATS, &at) < 0)
        return NULL;
    int players = at.players, deck_left = at.deck_left, *unseen = at.unseen;
    int light = tables_obj != Py_None;
    Tables tables;
    if (light && read_tables(tables_obj, players, &tables) < 0) return NULL;
    int hidden = fill != Py_None;
    if (iterations < 1) iterations = 1;

    Node *nodes = PyMem_Malloc(sizeof(Node) * (size_t)(iterations + 1));
    /* a path is at most every take and, between two takes, a pass per chip in the game */
    int path_cap = (deck_left + 2) * (MAX_CHIPS + 1);
    Step *path = PyMem_Malloc(sizeof(Step) * (size_t)path_cap);
    if (nodes == NULL || path == NULL) {
        PyMem_Free(nodes);
        PyMem_Free(path);
        return PyErr_NoMemory();
    }
    int node_count = 1;
    nodes[0] = (Node){.pass_child = -1, .first_take = -1, .next_sibling = -1};
    long root_scores[2] = {0, 0};
    uint64_t masks[MAX_SEATS];
    long chips[MAX_SEATS], scores[MAX_SEATS];
    double rewards[MAX_SEATS];
    PyObject *result = NULL;

    for (long it = 0; it < iterations; it++) {
        share_the_lock(it);
        for (int i = 0; i < deck_left; i++) {
            double x = draw(rand);
            if (x < 0.0) goto done;
            int j = i + (int)(x * (double)(at.pool - i));
            int swap = unseen[i];
            unseen[i] = unseen[j];
            unseen[j] = swap;
        }
        if (hidden) {
            PyObject *filled = PyObject_CallNoArgs(fill);
            if (filled == NULL) goto done;
            int bad = long_list(filled, chips, players, "filled chips");
            Py_DECREF(filled);
            if (bad < 0) goto done;
        } else {
            memcpy(chips, at.chips, sizeof(long) * players);
        }
        memcpy(masks, at.masks, sizeof(uint64_t) * players);
        int cur = at.card, to_move = at.seat, index = 0, end = deck_left, node = 0, steps = 0, finished = 0;
        long on_card = at.pot;
        for (;;) {
            long mine = chips[to_move];
            int take = mine <= 0 ? 1 : select_take(nodes[node].visits, nodes[node].sums, c, 0, 0, rand);
            if (take < 0) goto done;
            if (steps == path_cap) {
                PyErr_SetString(PyExc_RuntimeError, "search path longer than a game can be");
                goto done;
            }
            path[steps++] = (Step){node, take, to_move};
            if (take) {
                chips[to_move] = mine + on_card;
                masks[to_move] |= (uint64_t)1 << cur;
                if (index == end) {
                    finished = 1;
                    break;
                }
                cur = unseen[index];
                index += 1;
                on_card = 0;
                int child = nodes[node].first_take;
                while (child >= 0 && nodes[child].card != cur) child = nodes[child].next_sibling;
                if (child < 0) {
                    nodes[node_count] =
                        (Node){.pass_child = -1, .first_take = -1, .next_sibling = nodes[node].first_take, .card = cur};
                    nodes[node].first_take = node_count++;
                    break;
                }
                node = child;
            } else {
                chips[to_move] = mine - 1;
                on_card += 1;
                to_move += 1;
                if (to_move == players) to_move = 0;
                int child = nodes[node].pass_child;
                if (child < 0) {
                    nodes[node_count] = (Node){.pass_child = -1, .first_take = -1, .next_sibling = -1};
                    nodes[node].pass_child = node_count++;
                    break;
                }
                node = child;
            }
        }
        if (finished) {
            scores_of(players, masks, chips, scores);
        } else if (playout(light ? &tables : NULL, players, cur, on_card, to_move, masks, chips, unseen, index, end,
                           rand, scores) < 0) {
            goto done;
        }
        rewards_of(players, scores, score_weight, rewards);
        root_scores[path[0].took] += scores[at.seat];
        for (int k = 0; k < steps; k++) {
            nodes[path[k].node].visits[path[k].took] += 1;
            nodes[path[k].node].sums[path[k].took] += rewards[path[k].mover];
        }
    }
    result = Py_BuildValue("llddll", nodes[0].visits[1], nodes[0].visits[0], nodes[0].sums[1], nodes[0].sums[0],
                           root_scores[0], root_scores[1]);
done:
    PyMem_Free(nodes);
    PyMem_Free(path);
    return result;
}

/* ---- pubmcts.search's loop (pubmcts._python_search and _heuristic_playout), the same contract of exactness ---- */

#define PUB_SEATS 8

typedef struct { /* a node's key: every hand, every chip count, the face-up card, its pot, the mover */
    uint64_t masks[PUB_SEATS];
    long chips[PUB_SEATS];
    long pot;
    int card, seat;
} PubKey;

typedef struct {
    PubKey key;
    long visits[2];  /* of pass [0] and take [1] */
    double sums[2]; /* the mover's own values summed after each: all of the score vector the mover reads */
} PubNode;

static uint64_t pub_hash(const PubKey *k, int players) {
    uint64_t h = 1469598103934665603ULL ^ ((uint64_t)k->card << 32) ^ ((uint64_t)k->pot << 8) ^ (uint64_t)k->seat;
    for (int i = 0; i < players; i++) {
        h = (h ^ k->masks[i]) * 1099511628211ULL;
        h = (h ^ (uint64_t)k->chips[i]) * 1099511628211ULL;
        h ^= h >> 29;
    }
    h *= 0x9E3779B97F4A7C15ULL;
    return h ^ (h >> 32);
}

static int pub_same(const PubKey *a, const PubKey *k, int players) {
    if (a->card != k->card || a->pot != k->pot || a->seat != k->seat) return 0;
    for (int i = 0; i < players; i++)
        if (a->masks[i] != k->masks[i] || a->chips[i] != k->chips[i]) return 0;
    return 1;
}

/* pubmcts._heuristic_playout: ``playout`` by the tables (the threshold rule's, or another model's) through the
   cards still face down, each turned up from pool[:left] as a take would, all drawn first (a light playout draws
   nothing else). */
static int pub_playout(const Tables *t, int players, int card, long pot, int seat, uint64_t *masks, long *chips,
                       int *pool, int left, int deck_left, PyObject *rand, long *scores) {
    int deck[MAX_CARDS];
    for (int i = 0; i < deck_left; i++)
        if ((deck[i] = turn_up(pool, &left, rand)) < 0) return -1;
    return playout(t, players, card, pot, seat, masks, chips, deck, 0, deck_left, rand, scores);
}

/* The threshold rule: take when the score the card adds is at most the chips on it (chips to pay assumed). */
static int threshold_takes(int card, long pot, uint64_t mask) {
    int below = (mask >> (card - 1)) & 1, above = (mask >> (card + 1)) & 1;
    long cost = below ? (above ? -(card + 1) : 0) : (above ? -1 : card);
    return cost <= pot;
}

/* pub_run((masks, chips, card, pot, seat, unseen, deck_left), iterations, exploration, bonus, ruled, rand[, odds[,
   tables]]) -> (take visits, pass visits, the root mover's value summed after taking, after passing, its own score
   summed after taking, after passing). A mover's value is its score; the root mover's has ``bonus`` added on a
   loss. The seats in the bit set ``ruled`` play the threshold rule in the tree (rivals read as threshold players);
   so does a seat s in an iteration with probability odds[s] (always at 1), drawn at the iteration's start for each
   seat whose odds are strictly between 0 and 1 (none drawn otherwise). The root mover always searches. A step
   played by the rule is not recorded: only the mover reads its node's statistics, and a ruled mover reads none.
   Playouts play rollout.limit_tables' ``tables`` (every seat's model), or the threshold rule without them. */
static PyObject *pub_run(PyObject *self, PyObject *args) {
    PyObject *position, *rand, *odds_obj = NULL, *tables_obj = NULL;
    long iterations;
    long ruled;
    double c, bonus;
    Position at;
    if (!PyArg_ParseTuple(args, "O!lddlO|OO", &PyTuple_Type, &position, &iterations, &c, &bonus, &ruled, &rand,
                          &odds_obj, &tables_obj) ||
        read_position(position, PUB_SEATS, &at) < 0)
        return NULL;
    Tables model_tables;
    const Tables *tables = &THRESHOLD;
    if (tables_obj != NULL && tables_obj != Py_None) {
        if (read_tables(tables_obj, at.players, &model_tables) < 0) return NULL;
        tables = &model_tables;
    }
    double odds[PUB_SEATS] = {0};
    if (odds_obj != NULL && odds_obj != Py_None) {
        PyObject *seq = PySequence_Fast(odds_obj, "odds must be a sequence of floats");
        if (seq == NULL) return NULL;
        Py_ssize_t count = PySequence_Fast_GET_SIZE(seq);
        for (Py_ssize_t i = 0; i < count && i < at.players; i++) {
            odds[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, i));
            if (odds[i] == -1.0 && PyErr_Occurred()) {
                Py_DECREF(seq);
                return NULL;
            }
        }
        Py_DECREF(seq);
    }
    for (int i = 0; i < at.players; i++)
        if (odds[i] >= 1.0) ruled |= 1L << i;
    int players = at.players, seat0 = at.seat, deck_left0 = at.deck_left, pool_size = at.pool, pool[MAX_CARDS];
    const int *unseen = at.unseen;
    PubKey root = {.pot = at.pot, .card = at.card, .seat = seat0}; /* (the seats past ``players`` stay 0) */
    memcpy(root.masks, at.masks, sizeof root.masks);
    memcpy(root.chips, at.chips, sizeof root.chips);
    if (iterations < 1) iterations = 1;
    size_t slots = 2;
    while (slots < 2 * (size_t)(iterations + 1)) slots <<= 1;
    PubNode *nodes = PyMem_Malloc(sizeof(PubNode) * (size_t)(iterations + 1));
    int *table = PyMem_Malloc(sizeof(int) * slots);
    int path_cap = (deck_left0 + 2) * (MAX_CHIPS + 1);
    Step *path = PyMem_Malloc(sizeof(Step) * (size_t)path_cap);
    if (nodes == NULL || table == NULL || path == NULL) {
        PyMem_Free(nodes);
        PyMem_Free(table);
        PyMem_Free(path);
        return PyErr_NoMemory();
    }
    for (size_t i = 0; i < slots; i++) table[i] = -1;
    int node_count = 0;
    long scores[PUB_SEATS];
    double values[PUB_SEATS];
    long own[2] = {0, 0};
    PyObject *result = NULL;
    PubKey k;
    for (long it = 0; it < iterations; it++) {
        share_the_lock(it);
        memcpy(pool, unseen, sizeof(int) * (size_t)pool_size);
        int left = pool_size, deck_left = deck_left0, steps = 0;
        long ruled_now = ruled & ~(1L << seat0); /* (the root mover always searches) */
        for (int i = 0; i < players; i++)
            if (i != seat0 && odds[i] > 0.0 && odds[i] < 1.0 && !((ruled >> i) & 1)) {
                double x = draw(rand);
                if (x < 0.0) goto done;
                if (x < odds[i]) ruled_now |= 1L << i;
            }
        k = root;
        for (;;) {
            size_t slot = (size_t)pub_hash(&k, players) & (slots - 1);
            while (table[slot] >= 0 && !pub_same(&nodes[table[slot]].key, &k, players)) slot = (slot + 1) & (slots - 1);
            if (table[slot] < 0) {
                nodes[node_count] = (PubNode){.key = k};
                table[slot] = node_count++;
                if (pub_playout(tables, players, k.card, k.pot, k.seat, k.masks, k.chips, pool, left, deck_left, rand,
                                scores) < 0)
                    goto done;
                break;
            }
            int index = table[slot];
            int seat = k.seat;
            long mine = k.chips[seat];
            int by_rule = mine > 0 && (ruled_now >> seat) & 1;
            int take = mine <= 0  ? 1
                       : by_rule ? threshold_takes(k.card, k.pot, k.masks[seat])
                                 : select_take(nodes[index].visits, nodes[index].sums, c, 1, 1, rand);
            if (take < 0) goto done;
            if (steps == path_cap) {
                PyErr_SetString(PyExc_RuntimeError, "search path longer than a game can be");
                goto done;
            }
            if (!by_rule) path[steps++] = (Step){index, take, seat};
            if (take) {
                k.chips[seat] = mine + k.pot;
                k.masks[seat] |= (uint64_t)1 << k.card;
                if (deck_left == 0) {
                    scores_of(players, k.masks, k.chips, scores);
                    break;
                }
                deck_left -= 1;
                if ((k.card = turn_up(pool, &left, rand)) < 0) goto done;
                k.pot = 0;
            } else {
                k.chips[seat] = mine - 1;
                k.pot += 1;
                k.seat = seat + 1 == players ? 0 : seat + 1;
            }
        }
        if (steps > 0) own[path[0].took] += scores[seat0];
        for (int i = 0; i < players; i++) values[i] = (double)scores[i];
        if (bonus != 0.0) { /* the root mover's loss (1), tie (0.5) or win (0) against its best rival */
            long rival = LONG_MAX;
            for (int i = 0; i < players; i++)
                if (i != seat0 && scores[i] < rival) rival = scores[i];
            values[seat0] += bonus * ((scores[seat0] > rival) + (scores[seat0] >= rival)) / 2.0;
        }
        for (int s = 0; s < steps; s++) {
            nodes[path[s].node].visits[path[s].took] += 1;
            nodes[path[s].node].sums[path[s].took] += values[path[s].mover];
        }
    }
    result = Py_BuildValue("lldddd", nodes[0].visits[1], nodes[0].visits[0], nodes[0].sums[1], nodes[0].sums[0],
                           (double)own[1], (double)own[0]);
done:
    PyMem_Free(nodes);
    PyMem_Free(table);
    PyMem_Free(path);
    return result;
}

static PyMethodDef methods[] = {
    {"run", run, METH_VARARGS, "Run ismcts.search's iterations; see the module's C source."},
    {"pub_run", pub_run, METH_VARARGS, "Run pubmcts.search's iterations; see the module's C source."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_search_c", "The search loops in C.", -1, methods};

PyMODINIT_FUNC PyInit__search_c(void) { return PyModule_Create(&module); }
