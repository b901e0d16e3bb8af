/* Sensitivities d tau^(k) / d q^(j) by forward-mode derivative directions carried through
 * the body-fixed jet recursion (sensitivities.py: the complex-step numpy version is the
 * reference; tests/test_sensitivities.py holds them to 1e-12).
 *
 * The recursion maps the jet (q, qd, ..., q^(K+2)) to (tau, ..., tau^(K)); its tangent in
 * the direction of one input q^(j)_c (j = 0, 1, 2) gives column c of d tau^(k)/d q^(j) for
 * every k. The tangents of the passes (passes.c) are linear in the tangent of the input
 * jet, and the inputs enter in three places only:
 *   q_c (j = 0) through Ad_{C_{c,p}} = exp(-q_c ad_X) Ad_B: d Ad = -ad_X Ad, which commutes
 *     with the a- and b-tables, so  dV_c^(k) = -ad_X V_c^(k)  and body c sends
 *     Ad^T b_k(dF_c - ad_X^T F_c) to its parent (-ad_X^T F_c has no power on X_c: it is
 *     added to c's wrench tangent);
 *   q_c^(j) (j >= 1) as a coefficient of the a- and b-tables of joint c (seed_down, seed_up)
 *     and in V_c^(j-1) = ... + X_c q^(j).
 * Below c the twist tangents come down the tree (hk_transport_down); every body b at or
 * below c has the wrench tangent
 *   L_b^(k) = M dV^(k+1) - sum_i C(k,i) (ad*_{dV^(i)} h^(k-i) + ad*_{V^(i)} M dV^(k-i)),
 * whose power on joint a above b is d tau_a^(k) += sum_i C(k,i) J_b[:, a]^(i) . L_b^(k-i)
 * (tau_a = X_a . Ad^T_{C_{b,a}} F_b = J_b[:, a] . F_b, hk_jacobian_columns): no wrench is
 * transported. A tangent jet whose orders below z are zero keeps them zero (j = 2: z = 1).
 *
 * The other inputs follow without more directions. With D the total time derivative along
 * the motion, d(D g)/d q^(j) = D(d g/d q^(j)) + d g/d q^(j-1), so P^k_j := d tau^(k)/d q^(j)
 * = sum_a C(k,a) D^(k-a) P^0_(j-a), and P^0_j = 0 for j > 2. The three columns above give
 *   G_0^m = P^m_0,  G_1^m = P^m_1 - m G_0^(m-1),  G_2^m = P^m_2 - m G_1^(m-1) - C(m,2) G_0^(m-2)
 * (G_i^m = D^m P^0_i), and then P^k_j = sum_{i<=2} C(k, j-i) G_i^(k-j+i) for 3 <= j <= k+2. */
#include "kernel.h"

/* The part of d/dq_c^(j) (j >= 1) of d^k(Ad_{C_{c,p}} x), k < K1, that comes from the
 * coefficient q_c^(j) of the a-table, for the fixed jet in[K1][6] */
static void seed_down(const Consts *c, int i, const vd *Q, const AdjointV *Ad, const vd *in,
                      int K1, int j, vd *out) {
    const int n = c->n, kind = c->m->kind[i];
    const double *X = c->m->X + 6 * i, h = c->m->pitch[i];
    vd a[K1][K1][6], Na[K1][K1][6], d[K1][K1][6], t[6];
    for (int m = 0; m < K1; m++) {
        vad_apply(Ad, in + 6 * m, a[0][m]);
        vjoint_ad(X, kind, h, a[0][m], Na[0][m]);
        for (int e = 0; e < 6; e++) d[0][m][e] = (vd){0};
    }
    for (int k = 1; k < K1; k++)
        for (int m = 0; m + k < K1; m++) {
            for (int e = 0; e < 6; e++) { a[k][m][e] = a[k - 1][m + 1][e]; d[k][m][e] = d[k - 1][m + 1][e]; }
            for (int jj = 0; jj < k; jj++) {
                const vd w = BINOM[k - 1][jj] * Q[(jj + 1) * n + i];
                vjoint_ad(X, kind, h, d[k - 1 - jj][m], t);
                for (int e = 0; e < 6; e++) {
                    a[k][m][e] -= w * Na[k - 1 - jj][m][e];
                    d[k][m][e] -= w * t[e];
                }
            }
            if (k >= j)
                for (int e = 0; e < 6; e++) d[k][m][e] -= BINOM[k - 1][j - 1] * Na[k - j][m][e];
            vjoint_ad(X, kind, h, a[k][m], Na[k][m]);
        }
    for (int k = 0; k < K1; k++)
        for (int e = 0; e < 6; e++) out[6 * k + e] = d[k][0][e];
}

/* The part of d/dq_c^(j) (j >= 1) of d^k(Ad_{C_{c,p}}^T y), k < r1, from the coefficient
 * q_c^(j) of the b-table, for the fixed jet F[r1][6]; added to out[r1][6] */
static void seed_up(const Consts *c, int i, const vd *Q, const AdjointV *Ad, const vd *F,
                    int r1, int j, vd *out) {
    const int n = c->n, kind = c->m->kind[i];
    const double *X = c->m->X + 6 * i, h = c->m->pitch[i];
    vd b[r1][r1][6], Nb[r1][r1][6], d[r1][r1][6], Nd[r1][6], t[6];
    for (int m = 0; m < r1; m++)
        for (int e = 0; e < 6; e++) { b[0][m][e] = F[6 * m + e]; d[0][m][e] = (vd){0}; }
    for (int k = 1; k < r1; k++) {
        for (int m = 0; m + k - 1 < r1; m++) {
            vjoint_coad(X, kind, h, b[k - 1][m], Nb[k - 1][m]);
            vjoint_coad(X, kind, h, d[k - 1][m], Nd[m]);
        }
        for (int m = 0; m + k < r1; m++) {
            for (int e = 0; e < 6; e++) { b[k][m][e] = b[k - 1][m + 1][e]; d[k][m][e] = d[k - 1][m + 1][e]; }
            for (int jj = 0; jj <= m; jj++) {
                const vd w = BINOM[m][jj] * Q[(jj + 1) * n + i];
                for (int e = 0; e < 6; e++) {
                    b[k][m][e] -= w * Nb[k - 1][m - jj][e];
                    d[k][m][e] -= w * Nd[m - jj][e];
                }
            }
            if (m >= j - 1)
                for (int e = 0; e < 6; e++) d[k][m][e] -= BINOM[m][j - 1] * Nb[k - 1][m - j + 1][e];
        }
        vadT_apply(Ad, d[k][0], t);
        for (int e = 0; e < 6; e++) out[6 * k + e] += t[e];
    }
}

/* P[k][a] += sum_i C(k,i) J^(i) . L^(k-i), k < r1: a wrench jet L on a body, seen by a joint
 * whose column jet in that body's frame is J; L's orders below z are zero */
static inline void project(const vd *J, const vd *L, int r1, int z, vd *P) {
    for (int k = 0; k < r1; k++) {
        vd acc = {0};
        for (int i = 0; k - i >= z && i <= k; i++) acc += BINOM[k][i] * vdot6(J + 6 * i, L + 6 * (k - i));
        *P += acc;
        P += 1;
    }
}

/* Column c of d tau^(k)/d q^(j), k < r1, for one direction (c, j), j <= 2: P[a][k] (row a).
 * The twist tangents of the bodies b at and below c come down the tree; each adds the
 * tangent of its Newton-Euler wrench, L_b, whose power on every joint a above it is
 * J_b[:, a] . L_b (the wrench's transport to joint a, without transporting it). */
static void direction(const Consts *cs, int r1, const vd *Q, const vd *base, const vd *V,
                      const AdjointV *Ad, const vd *F, const vd *h, const vd *J, int c, int j,
                      vd *dV, vd *P) {
    const HModel *m = cs->m;
    const int n = cs->n, K1 = r1 + 1, z = j ? j - 1 : 0;  /* dV's orders below z are 0 */
    const size_t vj = (size_t)6 * K1, fj = (size_t)6 * r1;
    vd t[6], L[r1][6], dh[K1][6];
    memset(P, 0, sizeof(vd) * r1 * n);
    for (int b = c; b < n; b++) {
        if (!m->anc[(size_t)b * n + c]) continue;
        vd *dVb = dV + vj * b;
        if (b != c && z == K1 - 1) {  /* one non-zero order: X_c moved to b, J_b[:, c] */
            memset(dVb, 0, sizeof(vd) * 6 * z);
            memcpy(dVb + 6 * z, J + fj * ((size_t)n * b + c), sizeof(vd) * 6);
        } else if (b != c) {
            hk_transport_down(cs, b, Q, &Ad[b], dV + vj * m->parent[b], K1, z, dVb);
        } else if (j == 0) {
            for (int k = 0; k < K1; k++) {
                vjoint_ad(m->X + 6 * c, m->kind[c], m->pitch[c], V + vj * c + 6 * k, dVb + 6 * k);
                for (int e = 0; e < 6; e++) dVb[6 * k + e] = -dVb[6 * k + e];
            }
        } else {
            const int p = m->parent[c];
            seed_down(cs, c, Q, &Ad[c], p < 0 ? base : V + vj * p, K1, j, dVb);
            for (int e = 0; e < 6; e++) dVb[6 * (j - 1) + e] += m->X[6 * c + e];
        }
        const vd *Vb = V + vj * b, *hb = h + vj * b;
        for (int k = z; k < K1; k++) vinertia_apply(&cs->In[b], dVb + 6 * k, dh[k]);
        const int zL = z ? z - 1 : 0;  /* L's orders below zL are 0 */
        for (int k = zL; k < r1; k++) {
            for (int e = 0; e < 6; e++) L[k][e] = dh[k + 1][e];
            for (int i = 0; i <= k; i++) {
                if (i >= z) {
                    vcoad(dVb + 6 * i, hb + 6 * (k - i), t);
                    for (int e = 0; e < 6; e++) L[k][e] -= BINOM[k][i] * t[e];
                }
                if (k - i >= z) {
                    vcoad(Vb + 6 * i, dh[k - i], t);
                    for (int e = 0; e < 6; e++) L[k][e] -= BINOM[k][i] * t[e];
                }
            }
            if (b == c && j == 0) {  /* d Ad_c^T = -Ad_c^T ad_X^T: -ad_X^T F_c, powerless on X_c */
                vjoint_coad(m->X + 6 * c, m->kind[c], m->pitch[c], F + fj * c + 6 * k, t);
                for (int e = 0; e < 6; e++) L[k][e] -= t[e];
            }
        }
        const uint8_t *anc = m->anc + (size_t)b * n;
        const vd *Jb = J + fj * n * b;
        for (int a = 0; a < n; a++)
            if (anc[a]) project(Jb + fj * a, L[0], r1, zL, P + (size_t)r1 * a);
    }
    const int p = m->parent[c];
    if (j >= 1 && p >= 0 && r1 > 1) {  /* q_c^(j) in the b-table from c to its parent */
        vd E[r1][6];
        memset(E, 0, sizeof(E));
        seed_up(cs, c, Q, &Ad[c], F + fj * c, r1, j, E[0]);
        const uint8_t *anc = m->anc + (size_t)p * n;
        const vd *Jp = J + fj * n * p;
        for (int a = 0; a < n; a++)
            if (anc[a]) project(Jp + fj * a, E[0], r1, 1, P + (size_t)r1 * a);
    }
}

/* Number of (k, j) pairs, k <= order, j <= k + 2: the datasets in order (k, then j) */
static int n_sets(int order) { return (order + 1) * (order + 6) / 2; }

/* d tau^(k)/d q^(j) of N samples. qs: sample s's [D][n] at qs + s qstride (D >= order + 3);
 * base[base_rows][order + 2][6] as in hodyn_body_fixed; W[N][n][order + 1][6] or NULL; out[n_sets][N][n][n], the sets in
 * order (k, j), entry [i][c] = d tau_i^(k) / d q_c^(j). */
int hodyn_sensitivities(const HModel *m, int64_t N, int D, const double *qs, int64_t qstride,
                        int order, const double *base, int64_t base_rows, const double *W,
                        double *out) {
    int status = hk_check(m, N, D, order + 3, order, base_rows, qstride);
    if (status) return status;
    const int n = m->n, K1 = order + 2, r1 = order + 1, nq = (order + 3) * n, S = n_sets(order);
    const size_t nn = (size_t)n * n;
    Consts c;
    if (hk_consts(m, &c)) return HK_NOMEM;
    vd *Q = hk_alloc(sizeof(vd) * nq), *V = hk_alloc(sizeof(vd) * 6 * K1 * n);
    vd *F = hk_alloc(sizeof(vd) * 6 * r1 * n), *h = hk_alloc(sizeof(vd) * 6 * K1 * n);
    vd *dV = hk_alloc(sizeof(vd) * 6 * K1 * n), *J = hk_alloc(sizeof(vd) * 6 * r1 * nn);
    vd *tau = hk_alloc(sizeof(vd) * r1 * n), *bv = hk_alloc(sizeof(vd) * 6 * K1);
    vd *col = hk_alloc(sizeof(vd) * r1 * n);
    vd *P = hk_alloc(sizeof(vd) * 3 * r1 * nn);    /* P[j][k][i][c], j <= 2 */
    vd *G = hk_alloc(sizeof(vd) * 3 * r1 * nn);    /* G[i][m][.][.] = D^m P^0_i */
    vd *sets = hk_alloc(sizeof(vd) * S * nn);
    AdjointV *Ad = hk_alloc(sizeof(AdjointV) * n);
    if (!Q || !V || !F || !h || !dV || !J || !tau || !bv || !col || !P || !G || !sets || !Ad) {
        status = HK_NOMEM;
        goto done;
    }
    int64_t lane_s[LANES] = {0};
    hk_gather(base, 0, lane_s, 6 * K1, bv);
    for (int64_t s0 = 0; s0 < N; s0 += LANES) {
        hk_lanes(s0, N, lane_s);
        hk_lane_motion(&c, K1, qs, qstride, nq, base, base_rows, lane_s, Q, bv, Ad, V);
        hk_lane_wrenches(W, n, r1, lane_s, F);
        hk_backward(&c, r1, Q, V, Ad, F, h, tau);
        hk_jacobian_columns(&c, r1, Q, Ad, J);
        for (int j = 0; j < 3; j++)
            for (int dc = 0; dc < n; dc++) {
                direction(&c, r1, Q, bv, V, Ad, F, h, J, dc, j, dV, col);
                for (int k = 0; k < r1; k++)
                    for (int i = 0; i < n; i++) P[((size_t)j * r1 + k) * nn + (size_t)i * n + dc] = col[i * r1 + k];
            }
        /* G_i^m from P, then every (k, j) */
        for (int mm = 0; mm < r1; mm++)
            for (size_t e = 0; e < nn; e++) {
                const vd g0 = P[(size_t)mm * nn + e];
                vd g1 = P[((size_t)r1 + mm) * nn + e], g2 = P[((size_t)2 * r1 + mm) * nn + e];
                if (mm >= 1) {
                    g1 -= mm * G[(size_t)(mm - 1) * nn + e];
                    g2 -= mm * G[((size_t)r1 + mm - 1) * nn + e];
                }
                if (mm >= 2) g2 -= BINOM[mm][2] * G[(size_t)(mm - 2) * nn + e];
                G[(size_t)mm * nn + e] = g0;
                G[((size_t)r1 + mm) * nn + e] = g1;
                G[((size_t)2 * r1 + mm) * nn + e] = g2;
            }
        int set = 0;
        for (int k = 0; k < r1; k++)
            for (int j = 0; j <= k + 2; j++, set++) {
                vd *o = sets + (size_t)set * nn;
                if (j <= 2) {
                    memcpy(o, P + ((size_t)j * r1 + k) * nn, sizeof(vd) * nn);
                    continue;
                }
                memset(o, 0, sizeof(vd) * nn);
                for (int i = 0; i <= 2; i++) {
                    const int a = j - i;
                    if (a < 0 || a > k) continue;
                    const vd *g = G + ((size_t)i * r1 + (k - a)) * nn;
                    for (size_t e = 0; e < nn; e++) o[e] += BINOM[k][a] * g[e];
                }
            }
        for (int sidx = 0; sidx < S; sidx++)
            hk_scatter(sets + (size_t)sidx * nn, (int64_t)nn, s0, N, (int64_t)nn,
                       out + (size_t)sidx * N * nn);
    }
done:
    free(Q); free(V); free(F); free(h); free(dV); free(J); free(tau); free(bv); free(col);
    free(P); free(G); free(sets); free(Ad);
    hk_free_consts(&c);
    return status;
}
