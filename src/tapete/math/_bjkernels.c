/* The Black Jack analyzer's kernels in C (tapete.math._bjnative compiles and loads this file): the
 * same loops, in the same order of operations, as the Numba kernels of tapete/math/blackjack.py, which
 * stay the reference and the fallback. Arrays are C-contiguous: int64 for indices and counts, double
 * for values, one byte (numpy bool) for flags; a state table `cnt` is n x 10, `trans` n x 10, a
 * dealer distribution n x 7. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int64_t i64;
typedef unsigned char u8;

/* A dealer trie, packed: node k's parent, its card's (value, cards of that value before it) as one
 * index into a per-shoe table of counts, its depth; and the list of nodes where the dealer stands (in
 * node order, so the sums run in the same order as the Numba kernels'). */
typedef struct {
    const int32_t *parent;
    const int16_t *vb;
    const int16_t *depth;
    i64 n_nodes;
    const int32_t *term_node;
    const int32_t *term_out;
    const double *term_orders;
    i64 n_term;
} Trie;

#define VB 16

static void walk_trie(const double *shoe, i64 m, const Trie *t, double *nodep, double *inv, double *dist) {
    double num[10 * VB];
    for (int d = 0; d < 32; ++d) inv[d] = (m - d > 0) ? 1.0 / (double)(m - d) : 0.0;
    for (int v = 0; v < 10; ++v)
        for (int b = 0; b < VB; ++b) {
            double x = shoe[v] - (double)b;
            num[v * VB + b] = x > 0.0 ? x : 0.0;
        }
    nodep[0] = 1.0;
    const int32_t *parent = t->parent;
    const int16_t *vb = t->vb, *depth = t->depth;
    for (i64 k = 1; k < t->n_nodes; ++k) nodep[k] = nodep[parent[k]] * num[vb[k]] * inv[depth[k]];
    for (int o = 0; o < 7; ++o) dist[o] = 0.0;
    for (i64 q = 0; q < t->n_term; ++q) dist[t->term_out[q]] += t->term_orders[q] * nodep[t->term_node[q]];
    dist[5] = 1.0 - (dist[0] + dist[1] + dist[2] + dist[3] + dist[4] + dist[6]);
}

static double bust_value(const i64 *avail, i64 up, const i64 *cnt, i64 s, i64 v, i64 m, int full) {
    if (full || (up != 0 && up != 9)) return -1.0;
    i64 x = (up == 0) ? 9 : 0;
    i64 rest = m - 1;
    if (rest <= 0) return -1.0;
    i64 k = avail[x] - cnt[s * 10 + x];
    if (v == x) k -= 1;
    return -(1.0 - (double)k / (double)rest);
}

void dealer_kernel(const i64 *avail, const i64 *cnt, i64 n, const i64 *ncards, const u8 *need,
                   const Trie *trie, double *nodep, const i64 *src_idx, const u8 *src_done, const double *src_dist, double *dist_out,
                   u8 *feas_out, u8 *done_out) {
    double shoe[10], dist[7], inv[32];
    i64 nav = 0;
    for (int v = 0; v < 10; ++v) nav += avail[v];
    for (i64 s = 0; s < n; ++s) {
        int feas = 1;
        for (int v = 0; v < 10; ++v) {
            i64 x = avail[v] - cnt[s * 10 + v];
            if (x < 0) feas = 0;
            shoe[v] = (double)x;
        }
        feas_out[s] = (u8)feas;
        if (!feas || !need[s]) continue;
        i64 j = src_idx[s];
        if (j >= 0 && src_done[j]) {
            for (int o = 0; o < 7; ++o) dist_out[s * 7 + o] = src_dist[j * 7 + o];
        } else {
            walk_trie(shoe, nav - ncards[s], trie, nodep, inv, dist);
            for (int o = 0; o < 7; ++o) dist_out[s * 7 + o] = dist[o];
        }
        done_out[s] = 1;
    }
}

void cd_kernel(const i64 *avail, i64 up, const i64 *cnt, i64 n, const i64 *ncards, const i64 *trans,
               const double *stand_w, const u8 *feas, const u8 *play, int enhc, int peek, double *hit_out,
               double *dbl_out, double *best_out) {
    i64 nav = 0;
    for (int v = 0; v < 10; ++v) nav += avail[v];
    for (i64 s = 0; s < n; ++s) {
        if (!feas[s] || !play[s]) continue;
        i64 m = nav - ncards[s];
        double h = 0.0, dd = 0.0;
        for (i64 v = 0; v < 10; ++v) {
            i64 num = avail[v] - cnt[s * 10 + v];
            if (num <= 0) continue;
            double p = (double)num / (double)m;
            i64 t = trans[s * 10 + v];
            if (t < 0) {
                double b = bust_value(avail, up, cnt, s, v, m, enhc);
                h += p * b;
                dd += p * (peek ? 2.0 * b : b - 1.0);
            } else {
                h += p * best_out[t];
                dd += 2.0 * p * stand_w[t];
            }
        }
        hit_out[s] = h;
        dbl_out[s] = dd;
        best_out[s] = stand_w[s] > h ? stand_w[s] : h;
    }
}

/* Returns 0, or -1 when its scratch memory cannot be had (then nothing is written). */
int split_kernel(const i64 *avail0, i64 up, i64 p, const i64 *cnt, i64 n, const i64 *ncards, const i64 *tot,
                 const i64 *trans, const i64 *starts, const i64 *pol, const Trie *trie,
                 const i64 *reg_idx, const double *reg_dist, const i64 *comp, i64 n_comp, double *dist,
                 u8 *done, int enhc, const u8 *modes, i64 n_modes, double *out, i64 ntab) {
    /* scratch: the trie's node weights, the hands reached and needed, stand and play values */
    double *nodep = malloc(sizeof(double) * (size_t)(trie->n_nodes + 2 * n));
    u8 *reach = malloc((size_t)(2 * n));
    if (!nodep || !reach) {
        free(nodep);
        free(reach);
        return -1;
    }
    double *stand = nodep + trie->n_nodes, *val = stand + n;
    u8 *need = reach + n;
    int one_card = p == 0;
    memset(reach, 0, (size_t)n);
    memset(need, 0, (size_t)n);
    for (int i = 0; i < 10; ++i)
        if (starts[i] >= 0) reach[starts[i]] = 1;
    for (i64 r = 0; r < n; ++r) {
        i64 s = n - 1 - r;
        if (!reach[s]) continue;
        if (one_card || pol[s] == 0) {
            need[s] = 1;
            continue;
        }
        for (int v = 0; v < 10; ++v) {
            i64 t = trans[s * 10 + v];
            if (t >= 0) {
                if (pol[s] == 2)
                    need[t] = 1;
                else
                    reach[t] = 1;
            }
        }
    }
    double shoe[10], dd[7], inv[32];
    i64 avail[10];
    for (i64 a = 0; a < ntab; ++a) {
        i64 nav = 0;
        for (int v = 0; v < 10; ++v) {
            avail[v] = avail0[v];
            if (v == p) avail[v] -= 1 + a;
            nav += avail[v];
        }
        i64 m2 = nav - 1;
        if (avail[p] < 1 || m2 <= 0) {
            for (i64 i = 0; i < 2 * n_modes; ++i) out[i * ntab + a] = 0.0;
            continue;
        }
        for (i64 s = 0; s < n; ++s) {
            if (!need[s]) continue;
            int feas = 1;
            for (int v = 0; v < 10; ++v)
                if (avail[v] - cnt[s * 10 + v] < 0) feas = 0;
            if (!feas) {
                stand[s] = 0.0;
                continue;
            }
            i64 cs = comp[s];
            double *ds = dist + (a * n_comp + cs) * 7;
            if (!done[a * n_comp + cs]) {
                i64 j = reg_idx[a * n + s];
                i64 k = trans[s * 10 + p];
                i64 ck = k >= 0 ? comp[k] : -1;
                if (j >= 0) {
                    for (int o = 0; o < 7; ++o) ds[o] = reg_dist[j * 7 + o];
                } else if (a > 0 && ck >= 0 && done[(a - 1) * n_comp + ck]) {
                    for (int o = 0; o < 7; ++o) ds[o] = dist[((a - 1) * n_comp + ck) * 7 + o];
                } else {
                    for (int v = 0; v < 10; ++v) shoe[v] = (double)(avail[v] - cnt[s * 10 + v]);
                    walk_trie(shoe, nav - ncards[s], trie, nodep, inv, dd);
                    for (int o = 0; o < 7; ++o) ds[o] = dd[o];
                }
                done[a * n_comp + cs] = 1;
            }
            double w = ds[5];
            i64 t = tot[s];
            for (int i = 0; i < 5; ++i) {
                if (t > 17 + i)
                    w += ds[i];
                else if (t < 17 + i)
                    w -= ds[i];
            }
            if (enhc) w -= ds[6];
            stand[s] = w;
        }
        for (i64 mi = 0; mi < n_modes; ++mi) {
            int base_full = modes[mi * 2], dbl_full = modes[mi * 2 + 1];
            for (i64 s = 0; s < n; ++s) {
                if (!reach[s]) continue;
                i64 act = one_card ? 0 : pol[s];
                if (act == 0) {
                    val[s] = stand[s];
                    continue;
                }
                i64 m = nav - ncards[s];
                double acc = 0.0;
                for (i64 v = 0; v < 10; ++v) {
                    i64 num = avail[v] - cnt[s * 10 + v];
                    if (num <= 0) continue;
                    double pr = (double)num / (double)m;
                    i64 t = trans[s * 10 + v];
                    if (t < 0) {
                        double b = bust_value(avail, up, cnt, s, v, m, base_full);
                        if (act == 2) b += bust_value(avail, up, cnt, s, v, m, dbl_full);
                        acc += pr * b;
                    } else if (act == 1) {
                        acc += pr * val[t];
                    } else {
                        acc += 2.0 * pr * stand[t];
                    }
                }
                val[s] = acc;
            }
            double xa = 0.0, pa = 0.0;
            for (int x = 0; x < 10; ++x) {
                i64 num = avail[x] - (x == p ? 1 : 0);
                if (num <= 0 || starts[x] < 0) continue;
                double vx = val[starts[x]];
                xa += (double)num / (double)m2 * vx;
                if (x == p) pa = vx;
            }
            out[(2 * mi) * ntab + a] = xa;
            out[(2 * mi + 1) * ntab + a] = pa;
        }
    }
    free(nodep);
    free(reach);
    return 0;
}

void td_eval_kernel(const i64 *avail, i64 up, const i64 *cnt, i64 n, const i64 *ncards, const i64 *trans,
                    const i64 *cls, const double *stand_w, const u8 *feas, const u8 *play, const i64 *policy,
                    int enhc, double *hit_out, double *v_out) {
    i64 nav = 0;
    for (int v = 0; v < 10; ++v) nav += avail[v];
    for (i64 s = 0; s < n; ++s) {
        if (!feas[s] || !play[s]) continue;
        i64 m = nav - ncards[s];
        double h = 0.0;
        for (i64 v = 0; v < 10; ++v) {
            i64 num = avail[v] - cnt[s * 10 + v];
            if (num <= 0) continue;
            double p = (double)num / (double)m;
            i64 t = trans[s * 10 + v];
            if (t < 0)
                h += p * bust_value(avail, up, cnt, s, v, m, enhc);
            else
                h += p * v_out[t];
        }
        hit_out[s] = h;
        if (ncards[s] >= 3 && policy[cls[s]] == 1)
            v_out[s] = h;
        else
            v_out[s] = stand_w[s];
    }
}

void td_decide_kernel(const i64 *avail, i64 up, const i64 *cnt, i64 n, const i64 *ncards, const i64 *trans,
                      const double *stand_w, const u8 *feas, const i64 *class_order, i64 n_classes,
                      const i64 *member_start, const i64 *members, const double *weight,
                      const double *fallback_weight, int enhc, i64 *policy_out, double *v_out, double *hitv) {
    i64 nav = 0;
    for (int v = 0; v < 10; ++v) nav += avail[v];
    for (i64 ci = 0; ci < n_classes; ++ci) {
        i64 c = class_order[ci];
        double sum_s = 0.0, sum_h = 0.0, tw = 0.0, fs = 0.0, fh = 0.0;
        for (i64 q = member_start[ci]; q < member_start[ci + 1]; ++q) {
            i64 s = members[q];
            if (!feas[s]) continue;
            i64 m = nav - ncards[s];
            double h = 0.0;
            for (i64 v = 0; v < 10; ++v) {
                i64 num = avail[v] - cnt[s * 10 + v];
                if (num <= 0) continue;
                double p = (double)num / (double)m;
                i64 t = trans[s * 10 + v];
                if (t < 0)
                    h += p * bust_value(avail, up, cnt, s, v, m, enhc);
                else
                    h += p * v_out[t];
            }
            hitv[s] = h;
            sum_s += weight[s] * stand_w[s];
            sum_h += weight[s] * h;
            tw += weight[s];
            fs += fallback_weight[s] * stand_w[s];
            fh += fallback_weight[s] * h;
        }
        i64 pol = (tw > 0.0) ? (sum_h > sum_s ? 1 : 0) : (fh > fs ? 1 : 0);
        policy_out[c] = pol;
        for (i64 q = member_start[ci]; q < member_start[ci + 1]; ++q) {
            i64 s = members[q];
            if (feas[s]) v_out[s] = pol == 1 ? hitv[s] : stand_w[s];
        }
    }
}

void reach_kernel(const i64 *avail, const i64 *cnt, i64 n, const i64 *ncards, const i64 *trans, const u8 *feas,
                  const double *two_card_hit, const u8 *hit_flag, double *w_out) {
    i64 nav = 0;
    for (int v = 0; v < 10; ++v) nav += avail[v];
    for (i64 s = 0; s < n; ++s) w_out[s] = 0.0;
    for (i64 r = 0; r < n; ++r) {
        i64 s = n - 1 - r;
        if (!feas[s]) continue;
        double o;
        if (ncards[s] == 2)
            o = two_card_hit[s];
        else if (ncards[s] >= 3 && hit_flag[s])
            o = w_out[s];
        else
            continue;
        if (o == 0.0) continue;
        i64 m = nav - ncards[s];
        for (i64 v = 0; v < 10; ++v) {
            i64 num = avail[v] - cnt[s * 10 + v];
            i64 t = trans[s * 10 + v];
            if (num <= 0 || t < 0) continue;
            w_out[t] += o * (double)num / (double)m;
        }
    }
}
