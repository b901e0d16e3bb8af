/* The regressor Y^(k), tau^(k) = Y^(k) pi, by one recursion (regressor.py, regressor_numpy,
 * is the reference; tests/test_regressor.py holds them to 1e-12).
 *
 * Garofalo et al. eq. (13) (Atkeson et al.): body b's Newton-Euler wrench is linear in its 10
 * parameters, F_b = M_b V_b' - ad*_{V_b} M_b V_b = A_b(V_b, V_b') pi_b, and by Leibniz
 *   A_b^(k)[:, p] = E_p V^(k+1) - sum_j C(k,j) ad*_{V^(j)} E_p V^(k-j)      (M_b = sum_p pi_p E_p)
 * tau_c = sum_b J_b[:, c]^T F_b (J_b the body Jacobian of b in its own frame, columns c on the
 * path to the root), so
 *   Y^(k)[c][10 b + p] = sum_j C(k,j) J_b[:, c]^(j) . A_b^(k-j)[:, p]
 * The columns J_b[:, c] = Ad_{C_{b,c}} X_c and their derivatives: hk_jacobian_columns.
 *
 * A floating root (root = 1; regressor.py, floating_regressor_numpy, is the reference): 6 more
 * rows first, the root's generalized force F_0 = sum_b G_b^T F_b (+ the root's own), with
 * G_b = J_b's root columns, G_b = Ad_{C_{b,p}} G_p, G of the root I (root_columns), and 10
 * more columns first, the root's own parameters (its A_0 from the root's jet, G_0 = I). */
#include "kernel.h"

/* E_p x, p = (m, mcx, mcy, mcz, Ixx, Ixy, Iyy, Ixz, Iyz, Izz), x = (w; v): the inertia of
 * parameter p alone, [[Theta_p, skew(h_p)], [-skew(h_p), m_p I]] applied to x */
static inline void unit_inertias(const vd *x, vd y[10][6]) {
    const vd z = {0}, *w = x, *v = x + 3;
    vd *o;
    o = y[0]; o[0] = z; o[1] = z; o[2] = z; o[3] = v[0]; o[4] = v[1]; o[5] = v[2];
    o = y[1]; o[0] = z; o[1] = -v[2]; o[2] = v[1]; o[3] = z; o[4] = w[2]; o[5] = -w[1];
    o = y[2]; o[0] = v[2]; o[1] = z; o[2] = -v[0]; o[3] = -w[2]; o[4] = z; o[5] = w[0];
    o = y[3]; o[0] = -v[1]; o[1] = v[0]; o[2] = z; o[3] = w[1]; o[4] = -w[0]; o[5] = z;
    o = y[4]; o[0] = w[0]; o[1] = z; o[2] = z;
    o = y[5]; o[0] = w[1]; o[1] = w[0]; o[2] = z;
    o = y[6]; o[0] = z; o[1] = w[1]; o[2] = z;
    o = y[7]; o[0] = w[2]; o[1] = z; o[2] = w[0];
    o = y[8]; o[0] = z; o[1] = w[2]; o[2] = w[1];
    o = y[9]; o[0] = z; o[1] = z; o[2] = w[2];
    for (int p = 4; p < 10; p++) y[p][3] = y[p][4] = y[p][5] = z;
}

/* A[k][p][6], k < r1, of one body from its twist derivatives V[r1 + 1][6] */
static void body_regressor(const vd *V, int r1, vd A[][10][6]) {
    vd y[r1 + 1][10][6], t[6];
    for (int m = 0; m <= r1; m++) unit_inertias(V + 6 * m, y[m]);
    for (int k = 0; k < r1; k++)
        for (int p = 0; p < 10; p++) {
            for (int e = 0; e < 6; e++) A[k][p][e] = y[k + 1][p][e];
            for (int j = 0; j <= k; j++) {
                vcoad(V + 6 * j, y[k - j][p], t);
                for (int e = 0; e < 6; e++) A[k][p][e] -= BINOM[k][j] * t[e];
            }
        }
}

/* G[b][e][k][6], k < r1: column e of the root's columns of J_b^(k) (the root's unit twist e
 * carried down to body b): G_b = Ad_{C_{b,p}} G_p with its derivatives, G of the root I */
static void root_columns(const Consts *c, int r1, const vd *Q, const AdjointV *Ad, vd *G) {
    const size_t jet = (size_t)6 * r1;
    vd unit[6 * r1];
    for (int b = 0; b < c->n; b++) {
        const int p = c->m->parent[b];
        for (int e = 0; e < 6; e++) {
            if (p < 0) {
                memset(unit, 0, sizeof(vd) * jet);
                unit[e] = (vd){0} + 1.0;
            }
            const vd *in = p < 0 ? unit : G + jet * (6 * (size_t)p + e);
            hk_transport_down(c, b, Q, &Ad[b], in, r1, 0, G + jet * (6 * (size_t)b + e));
        }
    }
}

/* row[q] = sum_j C(k,j) col^(j) . A^(k-j)[q], q < 10: one row's 10 entries of body b */
static inline void jacobian_row(const vd *col, vd A[][10][6], int k, vd *row) {
    for (int q = 0; q < 10; q++) {
        vd acc = vdot6(col, A[k][q]);
        for (int j = 1; j <= k; j++) acc += BINOM[k][j] * vdot6(col + 6 * j, A[k - j][q]);
        row[q] = acc;
    }
}

/* Y of N samples. qs: sample s's [D][n] at qs + s qstride (D >= order + 3);
 * base[base_rows][order + 2][6] as in hodyn_body_fixed; out[order + 1][N][n][10 n], each derivative order one block of all
 * samples; root = 1 (a floating root, base its jet): out[order + 1][N][6 + n][10 (n + 1)],
 * the root's generalized force F_0 first (not negated) and the root's parameters first. */
int hodyn_regressor(const HModel *m, int64_t N, int D, const double *qs, int64_t qstride,
                    int order, const double *base, int64_t base_rows, int root, double *out) {
    int status = hk_check(m, N, D, order + 3, order, base_rows, qstride);
    if (status) return status;
    const int n = m->n, K1 = order + 2, r1 = order + 1, nq = (order + 3) * n;
    const int R0 = root ? 6 : 0, P0 = root ? 10 : 0, rows = R0 + n, cols = P0 + 10 * n;
    const size_t per_sample = (size_t)r1 * rows * cols, jet = (size_t)6 * r1;
    Consts c;
    if (hk_consts(m, &c)) return HK_NOMEM;
    vd *Q = hk_alloc(sizeof(vd) * nq), *V = hk_alloc(sizeof(vd) * 6 * K1 * n);
    vd *bv = hk_alloc(sizeof(vd) * 6 * K1), *Y = hk_alloc(sizeof(vd) * per_sample);
    vd *J = hk_alloc(sizeof(vd) * jet * n * n);  /* J[b][c][k][6]: column c of J_b^(k) */
    vd(*A)[10][6] = hk_alloc(sizeof(vd) * 60 * r1);
    AdjointV *Ad = hk_alloc(sizeof(AdjointV) * n);
    vd *G = root ? hk_alloc(sizeof(vd) * jet * 6 * n) : NULL;  /* G[b][e][k][6] */
    if (!Q || !V || !bv || !Y || !J || !A || !Ad || (root && !G)) { status = HK_NOMEM; goto done; }
    memset(Y, 0, sizeof(vd) * per_sample);  /* entries off the path to the root stay 0 */
    int64_t lane_s[LANES] = {0};
    hk_gather(base, 0, lane_s, 6 * K1, bv);
    for (int64_t s0 = 0; s0 < N; s0 += LANES) {
        hk_lanes(s0, N, lane_s);
        hk_lane_motion(&c, K1, qs, qstride, nq, base, base_rows, lane_s, Q, bv, Ad, V);
        hk_jacobian_columns(&c, r1, Q, Ad, J);
        if (root) {
            root_columns(&c, r1, Q, Ad, G);
            body_regressor(bv, r1, A);  /* the root itself: G_0 = I */
            for (int k = 0; k < r1; k++)
                for (int e = 0; e < 6; e++)
                    for (int q = 0; q < 10; q++)
                        Y[((size_t)k * rows + e) * cols + q] = A[k][q][e];
        }
        for (int b = 0; b < n; b++) {
            const uint8_t *anc = m->anc + (size_t)b * n;
            const vd *Jb = J + jet * n * b;
            body_regressor(V + (size_t)6 * K1 * b, r1, A);
            for (int k = 0; k < r1; k++) {
                for (int col = 0; col < n; col++)
                    if (anc[col])
                        jacobian_row(Jb + jet * col, A, k,
                                     Y + ((size_t)k * rows + R0 + col) * cols + P0 + 10 * b);
                for (int e = 0; e < R0; e++)
                    jacobian_row(G + jet * (6 * (size_t)b + e), A, k,
                                 Y + ((size_t)k * rows + e) * cols + P0 + 10 * b);
            }
        }
        const int64_t block = (int64_t)rows * cols;  /* one order of one sample */
        for (int k = 0; k < r1; k++)
            hk_scatter(Y + k * block, block, s0, N, block, out + k * N * block);
    }
done:
    free(Q); free(V); free(bv); free(Y); free(J); free(A); free(Ad); free(G);
    hk_free_consts(&c);
    return status;
}
